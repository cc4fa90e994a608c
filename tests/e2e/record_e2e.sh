#!/usr/bin/env bash
# End-to-end tests of the recorder (libtracegen-record.so) on the sample applications.
#
#   record_e2e.sh RECORDER COUNTER CHECKER APPS_DIR check APP NP
#       runs APP on NP ranks once under the counting library and once under the recorder, and
#       checks that the recorded trace's per-rank calls and bytes equal the counted ones
#   record_e2e.sh ... size-iterations
#       records stencil2d for 10 and for 10,000 timesteps: the larger trace is < 1.5x the smaller
#   record_e2e.sh ... size-ranks
#       records stencil2d on 4, 8 and 16 ranks and prints the sizes: they grow sublinearly
#       (the 16-rank trace is less than twice the 4-rank one, where linear growth is 4x)
#   record_e2e.sh ... compressed TRACEGEN
#       records stencil2d without TRACEGEN_OUTPUT: the trace is stencil2d.trace.zst in the working
#       directory, zstd-compressed, and tracegen reads it as it is; TRACEGEN_COMPRESS=0 writes
#       the text, and `tracegen convert --plain` of the compressed trace gives text too
#   record_e2e.sh ... compare TRACEGEN
#       `tracegen compare` finds two recordings of the same run identical (status 0) and one of
#       a run with one more timestep different (status 1, naming the operation); exits 77
#       (skipped) while the command line has no `compare` yet
#   record_e2e.sh ... roundtrip TRACEGEN APP NP
#       records APP, generates its C benchmark, runs it under the recorder and compares the two
#       recordings (TRACEGEN_E2E_RUNTIME=separate: generated with --runtime=separate and built
#       from bench.c and tracegen_runtime.c); for fft, both recordings mark the transposes that
#       send what the one before received (`fromrecv`)
#   record_e2e.sh ... tables TRACEGEN
#       records samples/apps/intsort (MPI_Alltoallv counts that differ for every pair of ranks) on
#       16 and 64 ranks: the benchmark's part made from the trace is under 300 lines at 16 ranks
#       and grows less than P^2 (at 64 ranks less than 8x the lines of 16), holds its counts as
#       tables by rank and no chain of more than 4 `rank == k ?` conditions, compiles with
#       -Werror (and against MPICH's header with TRACEGEN_MPICH_INCLUDE set), and at 16 ranks
#       makes the application's calls and bytes (tracegen compare)
#   record_e2e.sh ... fortran-onesided TRACEGEN
#       records samples/apps/rma_f (Fortran one-sided calls and MPI-IO) on 2 ranks: the calls and
#       bytes are recorded, and its C benchmark makes the same calls and bytes
#   record_e2e.sh ... opaque TRACEGEN NP
#       records samples/apps/opaque (generalized active target, MPI_Fetch_and_op, MPI_Rget and
#       MPI_Win_sync: opaque events, between modelled one-sided calls) on NP
#       ranks: `inspect` lists the opaque events, generation stops with status 2 naming the
#       first one and its call site, and with --skip-unknown the benchmark compiles with
#       -Werror, runs under the recorder and makes the application's calls and bytes except the
#       opaque ones, which `tracegen compare` reports as the only differences
#   record_e2e.sh ... twins TRACEGEN NP
#       records samples/apps/master_worker and its Fortran twin master_worker_f (wildcard
#       receives of every form: MPI_Recv, MPI_Irecv completed by MPI_Wait, MPI_Waitany and
#       MPI_Waitall, MPI_Sendrecv, MPI_Probe) on NP ranks: both traces name the sender of every
#       wildcard receive (`matched`), the same senders in the same order, `tracegen compare`
#       finds the two recordings' calls and bytes identical, and so are those of the two C
#       benchmarks generated from them (each run under the recorder)
#
# Runs are short and wrapped in `timeout`; as root, Open MPI needs the two ALLOW_RUN_AS_ROOT
# variables; --oversubscribe lets 8 or 16 ranks run on a small machine.
set -uo pipefail
recorder=$1 counter=$2 checker=$3 apps=$4 mode=$5
shift 5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
# Open MPI 4.1's one-sided components osc/sm and osc/ucx fail MPI_Win_allocate on this kind of
# machine (a container without their shared-memory backing, no UCX transport), intermittently:
# the one-sided samples use osc/rdma (or pt2pt).
export OMPI_MCA_osc=${OMPI_MCA_osc-^sm,ucx}

# Test-sized arguments of each sample (iterations first).
args_of() {
  case $1 in
    stencil2d) echo "40 32" ;;
    wavefront) echo "4 8 16" ;;
    sweep) echo "3 4 16" ;;
    fft) echo "10 32" ;;
    cg) echo "12 128" ;;
    ring) echo "10 256" ;;
    apitour) echo "2" ;;
    ring_f) echo "10" ;;
    polling) echo "20 256" ;;
    topo) echo "6 64" ;;
    opaque) echo "10 64" ;;
    rma) echo "10 64" ;;
    mpiio) echo "5 256" ;;
    persist) echo "40 128" ;;  # enough iterations that resolve-wildcards folds the loop
    persist_f) echo "40" ;;
    neighbor) echo "4 16" ;;
    neighbor_f) echo "6" ;;
    intsort) echo "3 1000" ;;
    master_worker | master_worker_f) echo "24" ;;
    randomaccess) echo "200000 3000" ;;  # buckets large and many enough to go by rendezvous
    *) echo "" ;;
  esac
}

run() {  # run NP PRELOAD OUTPUT_VAR OUTPUT APP ARGS...: one MPI run under a preloaded library
  local np=$1 preload=$2 var=$3 out=$4 app=$5
  shift 5
  timeout 300 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$preload" "$var=$out" "$apps/$app" "$@" \
    >"$work/stdout" 2>"$work/stderr"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $app on $np ranks under $(basename "$preload") exited with $rc"
    cat "$work/stdout" "$work/stderr"
    return 1
  fi
}

record() {  # record NP APP OUTPUT ARGS...
  local np=$1 app=$2 out=$3
  shift 3
  run "$np" "$recorder" TRACEGEN_OUTPUT "$out" "$app" "$@" || return 1
  [ -s "$out" ] || { echo "FAIL: no trace written by $app on $np ranks"; cat "$work/stderr"; return 1; }
}

size_of() { stat -c %s "$1"; }

case $mode in
  check)
    app=$1 np=$2
    read -r -a a <<<"$(args_of "$app")"
    run "$np" "$counter" TRACEGEN_COUNT_OUTPUT "$work/counts.json" "$app" "${a[@]}" || exit 1
    record "$np" "$app" "$work/$app.trace" "${a[@]}" || exit 1
    "$checker" "$work/$app.trace" "$work/counts.json"
    exit $?
    ;;
  size-iterations)
    # Loop compression keeps the trace's size independent of the run's length. Only bins that
    # hold samples are written, so a longer run, whose rarer outliers fill a few more decade
    # bins, may be a little larger: 1000x the timesteps must stay below 1.5x the bytes.
    record 4 stencil2d "$work/s10.trace" 10 16 || exit 1
    record 4 stencil2d "$work/s10000.trace" 10000 16 || exit 1
    small=$(size_of "$work/s10.trace") large=$(size_of "$work/s10000.trace")
    pct=$(awk -v a="$small" -v b="$large" 'BEGIN { d = b - a; if (d < 0) d = -d; printf "%.2f", 100 * d / a }')
    echo "stencil2d, 4 ranks (compressed): 10 timesteps $small bytes, 10000 timesteps $large bytes, difference $pct%"
    [ "$large" -lt $((small * 3 / 2)) ] || { echo "FAIL: 10000 timesteps give $large bytes, 1.5x the $small of 10 or more"; exit 1; }
    ;;
  size-ranks)
    for np in 4 8 16; do
      record "$np" stencil2d "$work/p$np.trace" 20 16 || exit 1
      echo "stencil2d, 20 timesteps: $np ranks $(size_of "$work/p$np.trace") bytes"
    done
    s4=$(size_of "$work/p4.trace") s16=$(size_of "$work/p16.trace")
    [ "$s16" -lt $((2 * s4)) ] || { echo "FAIL: 16 ranks give $s16 bytes, not less than twice the $s4 of 4 ranks"; exit 1; }
    ;;
  compare)
    tracegen=$1
    "$tracegen" --help 2>/dev/null | grep -Eq '^ +compare( |$)' ||
      { echo "SKIP: tracegen has no compare command yet"; exit 77; }
    record 4 stencil2d "$work/a.trace" 20 16 || exit 1
    record 4 stencil2d "$work/b.trace" 20 16 || exit 1
    record 4 stencil2d "$work/c.trace" 21 16 || exit 1
    "$tracegen" compare "$work/a.trace" "$work/b.trace" >"$work/same.txt"
    rc=$?
    [ $rc -eq 0 ] || { echo "FAIL: equal recordings compare with status $rc"; cat "$work/same.txt"; exit 1; }
    "$tracegen" compare "$work/a.trace" "$work/c.trace" >"$work/diff.txt"
    rc=$?
    [ $rc -eq 1 ] || { echo "FAIL: different recordings compare with status $rc"; cat "$work/diff.txt"; exit 1; }
    grep -q "rank 0: MPI_Allreduce: 20 vs 21 calls" "$work/diff.txt" ||
      { echo "FAIL: the difference is not reported"; cat "$work/diff.txt"; exit 1; }
    echo "tracegen compare: equal recordings agree, an extra timestep is reported"
    ;;
  compressed)
    tracegen=$1
    mkdir -p "$work/cwd"
    (cd "$work/cwd" && timeout 300 mpiexec --oversubscribe -n 4 env LD_PRELOAD="$recorder" "$apps/stencil2d" 20 16 \
      >"$work/stdout" 2>"$work/stderr") || { echo "FAIL: stencil2d under the recorder"; cat "$work/stderr"; exit 1; }
    z="$work/cwd/stencil2d.trace.zst"
    [ -s "$z" ] || { echo "FAIL: no stencil2d.trace.zst written"; ls "$work/cwd"; exit 1; }
    [ "$(head -c 4 "$z" | od -An -tx1 | tr -d ' ')" = 28b52ffd ] || { echo "FAIL: $z is not zstd-compressed"; exit 1; }
    zstd -q -t "$z" || { echo "FAIL: zstd -t rejects $z"; exit 1; }
    zstdcat "$z" | head -n 1 | grep -qx "tracegen-trace 1" || { echo "FAIL: zstdcat does not give the text"; exit 1; }
    "$tracegen" inspect "$z" >"$work/inspect.txt" || { echo "FAIL: tracegen inspect cannot read $z"; exit 1; }
    grep -q "MPI_Allreduce" "$work/inspect.txt" || { echo "FAIL: inspect output"; cat "$work/inspect.txt"; exit 1; }
    "$tracegen" convert "$z" --plain -o "$work/plain.tgt" || { echo "FAIL: convert --plain"; exit 1; }
    head -n 1 "$work/plain.tgt" | grep -qx "tracegen-trace 1" || { echo "FAIL: convert --plain wrote no text"; exit 1; }
    # TRACEGEN_COMPRESS=0: plain text
    timeout 300 mpiexec --oversubscribe -n 4 env LD_PRELOAD="$recorder" TRACEGEN_COMPRESS=0 TRACEGEN_OUTPUT="$work/text.trace" \
      "$apps/stencil2d" 20 16 >"$work/stdout" 2>"$work/stderr" || { echo "FAIL: TRACEGEN_COMPRESS=0 run"; exit 1; }
    head -n 1 "$work/text.trace" | grep -qx "tracegen-trace 1" || { echo "FAIL: TRACEGEN_COMPRESS=0 wrote no text"; exit 1; }
    # The process footprint: every rank's peak memory (a few MiB at least) and the start-up time.
    grep -Eq '^footprint memory-kb [0-9]{3,}' "$work/text.trace" || { echo "FAIL: no peak memory in the trace"; head "$work/text.trace"; exit 1; }
    grep -Eq '^footprint before-init-us [0-9]+' "$work/text.trace" || { echo "FAIL: no time before MPI_Init"; head "$work/text.trace"; exit 1; }
    # Rank 0's time after MPI_Finalize, appended at its exit: the last line of the text, and a
    # zstd frame of its own at the end of the compressed trace (read as one text).
    tail -n 1 "$work/text.trace" | grep -Eqx 'footprint after-finalize-us [0-9]+' ||
      { echo "FAIL: no time after MPI_Finalize at the end of the trace"; tail -n 3 "$work/text.trace"; exit 1; }
    zstdcat "$z" | tail -n 1 | grep -Eqx 'footprint after-finalize-us [0-9]+' ||
      { echo "FAIL: no time after MPI_Finalize in the compressed trace"; exit 1; }
    "$tracegen" convert "$z" --plain -o - | grep -Eq '^footprint after-finalize-us [0-9]+' ||
      { echo "FAIL: tracegen does not keep the time after MPI_Finalize"; exit 1; }
    "$tracegen" compare "$z" "$work/text.trace" >"$work/cmp.txt" || { echo "FAIL: the two recordings differ"; cat "$work/cmp.txt"; exit 1; }
    echo "compressed $(stat -c %s "$z") bytes, text $(stat -c %s "$work/text.trace") bytes; both read alike"
    ;;
  roundtrip)
    # record APP, generate its C benchmark, run the benchmark under the recorder, and compare
    # the two recordings: identical calls and bytes on every rank. The time ratio is printed
    # (on a shared 2-core machine it is the scheduler's as much as the benchmark's).
    tracegen=$1 app=$2 np=$3
    read -r -a a <<<"$(args_of "$app")"
    t0=$(date +%s.%N)
    record "$np" "$app" "$work/app.trace" "${a[@]}" || exit 1
    t1=$(date +%s.%N)
    # Every call of the samples is one the recorder follows: no warning of untracked requests,
    # groups or overflows (topo's MPI_Comm_idup request is known, though not tracked).
    if grep -q 'tracegen-record: warning' "$work/stderr"; then
      echo "FAIL: the recorder warned while recording $app:"; grep 'tracegen-record: warning' "$work/stderr"; exit 1
    fi
    # persist and persist_f probe from MPI_ANY_SOURCE (MPI_Mprobe, MPI_Improbe; from Fortran
    # MPI_MPROBE, MPI_IMPROBE): the trace names the sender each probe found.
    case $app in
      persist | persist_f)
        [ "$(zstdcat -f "$work/app.trace" | grep -E -A12 '^event [0-9]+ MPI_(Mprobe|Improbe) ' | grep -c '^  matched')" -ge 2 ] ||
          { echo "FAIL: $app's trace records no sender for its wildcard probes"; exit 1; }
        # Without the recorded senders (which the whole program is simulated to follow), its
        # wildcards are decided on the time-step loop folded to a few iterations (the
        # benchmark's calls are compared with the application's below).
        # (The statistics go to a file first: grep -q would stop reading early, and under
        # pipefail tracegen's broken pipe would fail the check.)
        "$tracegen" "$work/app.trace" -o "$work/folded.c" --wildcard-senders earliest --stats >"$work/folded.stats" 2>&1 ||
          { echo "FAIL: tracegen --stats on $app"; cat "$work/folded.stats"; exit 1; }
        grep -Eq '^ +1 +loops-folded$' "$work/folded.stats" ||
          { echo "FAIL: resolve-wildcards did not fold $app's time-step loop"; cat "$work/folded.stats"; exit 1; } ;;
    esac
    # randomaccess's wildcard receives take the senders its recording saw (`matched`): the
    # earliest-arrival matching, which buffers every send, leaves its benchmark waiting for ever
    # on sends nobody receives (Open MPI sends its 8 KB buckets by rendezvous).
    if [ "$app" = randomaccess ]; then
      "$tracegen" "$work/app.trace" -o "$work/recorded.c" --stats >"$work/recorded.stats" 2>&1 ||
        { echo "FAIL: tracegen --stats on $app"; cat "$work/recorded.stats"; exit 1; }
      grep -Eq '^ +[1-9][0-9]* +wildcards-as-recorded$' "$work/recorded.stats" ||
        { echo "FAIL: resolve-wildcards did not follow $app's recorded senders"; cat "$work/recorded.stats"; exit 1; }
    fi
    # TRACEGEN_E2E_RUNTIME=separate: the runtime as tracegen_runtime.h and tracegen_runtime.c
    # beside bench.c, which includes the header; both are compiled
    runtime=${TRACEGEN_E2E_RUNTIME:-embedded}
    "$tracegen" "$work/app.trace" -o "$work/bench.c" --runtime="$runtime" 2>"$work/gen.err" ||
      { echo "FAIL: tracegen could not generate a benchmark from $app"; cat "$work/gen.err"; exit 1; }
    sources=("$work/bench.c")
    if [ "$runtime" = separate ]; then
      [ -f "$work/tracegen_runtime.h" ] && [ -f "$work/tracegen_runtime.c" ] ||
        { echo "FAIL: --runtime=separate did not write tracegen_runtime.h and tracegen_runtime.c"; ls "$work"; exit 1; }
      grep -q '^#include "tracegen_runtime.h"$' "$work/bench.c" && ! grep -q '^void compute(double us)$' "$work/bench.c" ||
        { echo "FAIL: bench.c does not include the separate runtime, or holds it"; exit 1; }
      sources+=("$work/tracegen_runtime.c")
    fi
    mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/bench" "${sources[@]}" ||
      { echo "FAIL: the benchmark of $app does not compile ($runtime runtime)"; exit 1; }
    t2=$(date +%s.%N)
    timeout 300 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/bench.trace" \
      "$work/bench" >"$work/bench.out" 2>&1 || { echo "FAIL: the benchmark of $app failed"; cat "$work/bench.out"; exit 1; }
    t3=$(date +%s.%N)
    "$tracegen" compare "$work/app.trace" "$work/bench.trace" >"$work/compare.txt"
    rc=$?
    [ $rc -eq 0 ] || { echo "FAIL: $app and its benchmark differ"; cat "$work/compare.txt"; exit 1; }
    # fft transposes from the array its previous transpose received into (a and b swapped): the
    # recorder marks those calls `fromrecv`, the benchmark swaps its buffers before them, and so
    # its own recording shows the same relation.
    if [ "$app" = fft ]; then
      for t in app bench; do
        zstdcat -f "$work/$t.trace" | grep -A12 '^event [0-9]* MPI_Alltoall ' | grep -q '^  fromrecv' ||
          { echo "FAIL: the $t's MPI_Alltoall is not marked as sending what it received (fromrecv)"; exit 1; }
      done
      grep -q '^ *swap_buffers(); /\*' "$work/bench.c" || { echo "FAIL: fft's benchmark does not swap its buffers"; exit 1; }
      echo "fft: the application's and the benchmark's transposes both send what the one before received"
    fi
    # MPI-IO: the benchmark's scratch files (in $TMPDIR or its working directory) are gone
    if grep -q "MPI_File_open" "$work/bench.c"; then
      left=$(find "${TMPDIR:-/tmp}" . -maxdepth 1 -name 'tracegen-bench-*.tmp' 2>/dev/null)
      [ -z "$left" ] || { echo "FAIL: the benchmark left its scratch files: $left"; exit 1; }
      echo "$app: the benchmark's scratch files are gone"
    fi
    awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v app="$app" -v np="$np" 'BEGIN {
      printf "%s on %d ranks: application %.2f s, benchmark %.2f s, ratio %.2f (both under the recorder, mpiexec start-up included)\n",
             app, np, b - a, d - c, (d - c) / (b - a) }'
    tail -n 1 "$work/bench.out"
    # The traced time (computation plus time in MPI, summed over ranks), without start-up.
    awk -v app="$app" '$1 == "all" { printf "%s: traced time %s s in the application, %s s in the benchmark, ratio %s\n", app, $2, $3, $4 }' \
      "$work/compare.txt"
    ;;
  tables)
    # Per-rank values that no formula explains are tables indexed by rank (docs/c-backend.md):
    # the file grows with P, not with P^2 as chains of `rank == k ? v :` per count did.
    tracegen=$1
    read -r -a a <<<"$(args_of intsort)"
    declare -A lines
    for np in 16 64; do
      record "$np" intsort "$work/is$np.trace" "${a[@]}" || exit 1
      "$tracegen" "$work/is$np.trace" -o "$work/is$np.c" 2>"$work/gen.err" ||
        { echo "FAIL: tracegen could not generate a benchmark from intsort on $np ranks"; cat "$work/gen.err"; exit 1; }
      # The part made from the trace: after the runtime's text, which is the same for every trace.
      lines[$np]=$(sed -n '/^\/\* ==== tracegen: benchmark of .* starts here ==== \*\/$/,$p' "$work/is$np.c" | wc -l)
      [ "${lines[$np]}" -gt 0 ] || { echo "FAIL: no benchmark part in is$np.c"; exit 1; }
      grep -q "static const int sendcounts_by_rank\[$np\]\[$np\] = {" "$work/is$np.c" ||
        { echo "FAIL: the Alltoallv's send counts on $np ranks are not a table by rank"; exit 1; }
      # A chain of up to 4 choices by rank stays (rank sets say more than a table there).
      chain='(rank == [0-9]+ \? [^:?]+ : ){4}'
      ! grep -Eq "$chain" "$work/is$np.c" ||
        { echo "FAIL: a chain of more than 4 rank conditions on $np ranks:"; grep -Em 3 "$chain" "$work/is$np.c" | cut -c 1-200; exit 1; }
      t0=$(date +%s.%N)
      mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/bench$np" "$work/is$np.c" ||
        { echo "FAIL: the benchmark of intsort on $np ranks does not compile"; exit 1; }
      t1=$(date +%s.%N)
      if [ -n "${TRACEGEN_MPICH_INCLUDE:-}" ]; then
        cc -std=c11 -O2 -Wall -Wextra -Werror -c -o "$work/is$np.mpich.o" -I"$TRACEGEN_MPICH_INCLUDE" "$work/is$np.c" ||
          { echo "FAIL: the benchmark of intsort on $np ranks does not compile against MPICH's header"; exit 1; }
      fi
      awk -v np="$np" -v l="${lines[$np]}" -v all="$(wc -l <"$work/is$np.c")" -v b="$(wc -c <"$work/is$np.c")"           -v t0="$t0" -v t1="$t1" 'BEGIN {
        printf "intsort on %d ranks: %d lines made from the trace (%d with the runtime, %d bytes), mpicc -O2 %.2f s\n",
               np, l, all, b, t1 - t0 }'
    done
    [ "${lines[16]}" -lt 300 ] || { echo "FAIL: ${lines[16]} lines at 16 ranks, not under 300"; exit 1; }
    [ "${lines[64]}" -lt $((8 * lines[16])) ] ||
      { echo "FAIL: ${lines[64]} lines at 64 ranks, 8x or more the ${lines[16]} of 16 (P^2 would be 16x)"; exit 1; }
    # The benchmark at 16 ranks, under the recorder: the application's calls and bytes.
    timeout 300 mpiexec --oversubscribe -n 16 env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/bench.trace" \
      "$work/bench16" >"$work/bench.out" 2>&1 || { echo "FAIL: the benchmark of intsort failed"; cat "$work/bench.out"; exit 1; }
    "$tracegen" compare "$work/is16.trace" "$work/bench.trace" >"$work/compare.txt" ||
      { echo "FAIL: intsort and its benchmark differ"; cat "$work/compare.txt"; exit 1; }
    echo "intsort: the benchmark on 16 ranks makes the application's calls and bytes"
    ;;
  fortran-onesided)
    # samples/apps/rma_f (Fortran): the recorder's Fortran entry points record the one-sided and
    # MPI-IO calls with their bytes (puts and writes sent, gets and reads received), and the
    # generated C benchmark makes the same calls and bytes
    tracegen=$1
    record 2 rma_f "$work/app.trace" || exit 1
    "$tracegen" inspect "$work/app.trace" --per-rank --format json >"$work/inspect.json" || { echo "FAIL: inspect"; exit 1; }
    # rank 0: calls per operation; 3 puts of 8 doubles and one write of 8 sent, one get of 4
    # doubles and one read of 8 received
    python3 - "$work/inspect.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))["per_rank"][0]
want = {"MPI_Win_create": 1, "MPI_Win_fence": 6, "MPI_Put": 3, "MPI_Win_lock": 1, "MPI_Get": 1, "MPI_Win_unlock": 1,
        "MPI_Win_free": 1, "MPI_File_open": 1, "MPI_File_write_at_all": 1, "MPI_File_read_at": 1, "MPI_File_close": 1}
bad = [f"{op}: {r['ops'].get(op, 0)} calls, not {n}" for op, n in want.items() if r["ops"].get(op, 0) != n]
if (r["bytes_sent"], r["bytes_received"]) != (256, 96):
    bad.append(f"bytes sent {r['bytes_sent']} (256), received {r['bytes_received']} (96)")
if bad:
    print("FAIL: rank 0 of rma_f: " + "; ".join(bad))
    sys.exit(1)
PY
    [ ! -e rma_f.dat ] || { echo "FAIL: rma_f.dat was not deleted on close"; exit 1; }
    "$tracegen" "$work/app.trace" -o "$work/bench.c" 2>"$work/gen.err" || { echo "FAIL: generation"; cat "$work/gen.err"; exit 1; }
    mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/bench" "$work/bench.c" || { echo "FAIL: the benchmark does not compile"; exit 1; }
    timeout 300 mpiexec --oversubscribe -n 2 env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/bench.trace" \
      "$work/bench" >"$work/bench.out" 2>&1 || { echo "FAIL: the benchmark failed"; cat "$work/bench.out"; exit 1; }
    "$tracegen" compare "$work/app.trace" "$work/bench.trace" >"$work/compare.txt" ||
      { echo "FAIL: rma_f and its benchmark differ"; cat "$work/compare.txt"; exit 1; }
    echo "rma_f (Fortran) on 2 ranks: one-sided and MPI-IO calls recorded with their bytes; the benchmark makes the same"
    ;;
  twins)
    tracegen=$1 np=$2
    for app in master_worker master_worker_f; do
      read -r -a a <<<"$(args_of "$app")"
      record "$np" "$app" "$work/$app.trace" "${a[@]}" || exit 1
      # The senders the wildcard receives matched, event by event, as the trace lists them.
      zstdcat -f "$work/$app.trace" | grep '^  matched' >"$work/$app.matched"
      "$tracegen" "$work/$app.trace" -o "$work/$app.c" 2>"$work/gen.err" ||
        { echo "FAIL: tracegen could not generate a benchmark from $app"; cat "$work/gen.err"; exit 1; }
      mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/$app.bench" "$work/$app.c" ||
        { echo "FAIL: the benchmark of $app does not compile"; exit 1; }
      timeout 300 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/$app.bench.trace" \
        "$work/$app.bench" >"$work/bench.out" 2>&1 || { echo "FAIL: the benchmark of $app failed"; cat "$work/bench.out"; exit 1; }
    done
    # Rounds 0-5 of each six: MPI_Recv, MPI_Wait, two MPI_Waitany, MPI_Waitall, MPI_Sendrecv
    # name their sender (the probe of round 5 does not: C's MPI_Probe records none).
    c=$(wc -l <"$work/master_worker.matched") f=$(wc -l <"$work/master_worker_f.matched")
    echo "wildcard receives with their sender recorded: C $c, Fortran $f"
    [ "$c" -gt 0 ] || { echo "FAIL: master_worker's trace names no sender"; exit 1; }
    cmp -s "$work/master_worker.matched" "$work/master_worker_f.matched" ||
      { echo "FAIL: the C and Fortran twins record different senders"; diff "$work/master_worker.matched" "$work/master_worker_f.matched"; exit 1; }
    "$tracegen" compare "$work/master_worker.trace" "$work/master_worker_f.trace" >"$work/compare.txt" ||
      { echo "FAIL: the C and Fortran twins' recordings differ"; cat "$work/compare.txt"; exit 1; }
    "$tracegen" compare "$work/master_worker.bench.trace" "$work/master_worker_f.bench.trace" >"$work/compare.txt" ||
      { echo "FAIL: the benchmarks of the C and Fortran twins differ"; cat "$work/compare.txt"; exit 1; }
    echo "master_worker and master_worker_f on $np ranks: the same senders, calls and bytes, and so are their benchmarks'"
    ;;
  opaque)
    tracegen=$1 np=$2
    read -r -a a <<<"$(args_of opaque)"
    record "$np" opaque "$work/app.trace" "${a[@]}" || exit 1
    "$tracegen" inspect "$work/app.trace" >"$work/inspect.txt" || { echo "FAIL: inspect"; cat "$work/inspect.txt"; exit 1; }
    opaque_ops="MPI_Win_post MPI_Win_start MPI_Fetch_and_op MPI_Win_complete MPI_Win_wait MPI_Rget MPI_Win_sync"
    for op in $opaque_ops; do
      grep -Eq "^  E[0-9]+ $op at [0-9a-f_]+, ranks 0-$((np - 1)) " "$work/inspect.txt" ||
        { echo "FAIL: inspect does not list the opaque $op with its call site"; cat "$work/inspect.txt"; exit 1; }
    done
    "$tracegen" "$work/app.trace" -o "$work/refused.c" 2>"$work/refused.err"
    rc=$?
    [ $rc -eq 2 ] || { echo "FAIL: generation from a trace with opaque events exits $rc, not 2"; cat "$work/refused.err"; exit 1; }
    grep -Eq "app\.trace:[0-9]+: error: event [0-9]+ is a call of MPI_Win_post at [0-9a-f_]+, which tracegen records but does not model" "$work/refused.err" ||
      { echo "FAIL: the error does not name the call and its site"; cat "$work/refused.err"; exit 1; }
    [ ! -e "$work/refused.c" ] || { echo "FAIL: a refused generation wrote its output"; exit 1; }
    "$tracegen" "$work/app.trace" --skip-unknown -o "$work/bench.c" 2>"$work/gen.err" ||
      { echo "FAIL: --skip-unknown"; cat "$work/gen.err"; exit 1; }
    grep -q "MPI_Fetch_and_op: a call tracegen does not model, left out (--skip-unknown)" "$work/bench.c" ||
      { echo "FAIL: no comment in the place of MPI_Fetch_and_op"; exit 1; }
    mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/bench" "$work/bench.c" ||
      { echo "FAIL: the --skip-unknown benchmark does not compile"; exit 1; }
    timeout 300 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/bench.trace" \
      "$work/bench" >"$work/bench.out" 2>&1 || { echo "FAIL: the benchmark failed"; cat "$work/bench.out"; exit 1; }
    "$tracegen" compare "$work/app.trace" "$work/bench.trace" >"$work/compare.txt"
    rc=$?
    [ $rc -eq 1 ] || { echo "FAIL: compare exits $rc, not 1 (the opaque calls differ)"; cat "$work/compare.txt"; exit 1; }
    others=$(grep -E '^rank [0-9]+: ' "$work/compare.txt" | grep -Ev '^rank [0-9]+: MPI_(Win_post|Win_start|Fetch_and_op|Win_complete|Win_wait|Rget|Win_sync): [0-9]+ vs 0 calls$')
    [ -z "$others" ] || { echo "FAIL: differences beyond the opaque calls:"; echo "$others"; exit 1; }
    grep -Eq '^rank 0: MPI_Fetch_and_op: 10 vs 0 calls$' "$work/compare.txt" || { echo "FAIL: MPI_Fetch_and_op not compared"; cat "$work/compare.txt"; exit 1; }
    # the modelled one-sided calls around them are replayed: no difference in those
    grep -Eq '^rank [0-9]+: MPI_Win_(create|free|lock_all|unlock_all): ' "$work/compare.txt" &&
      { echo "FAIL: the modelled one-sided calls differ"; cat "$work/compare.txt"; exit 1; }
    echo "opaque on $np ranks: inspect lists the opaque calls, generation refuses them (status 2), --skip-unknown replays the rest"
    ;;
  *)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
