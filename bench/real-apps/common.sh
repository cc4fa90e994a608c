# What the scripts of bench/real-apps/ have in common, sourced by each of them (not run).
#
# realapps_init BUILD [NP...]   the build directory's recorder, counting library and tracegen
#                               ($recorder, $counter, $tracegen), the rank counts ($nps, default
#                               2 and 4), a work directory removed on exit ($work; kept and
#                               named if KEEP_WORK is set), Open MPI as root
# enter_rank_dir NP [FILE...]   makes the rank count's directory $work/npNP ($dir), copies the
#                               FILEs into it and changes to it
# run_app NAME NP CMD...        runs the application in the current directory (timed: $t0 to
#                               $t1) and keeps the command for check_benchmark's timing runs;
#                               exits 1 if it fails, printing the end of its output
# record_app NAME NP DIR CMD... runs it again under the recorder into DIR/app.trace (to $t2), then
#                               sets $events and $size (bytes) of the trace
# check_benchmark NP DIR        generates DIR/bench.ncptl and DIR/bench.c from DIR/app.trace,
#                               compiles the C one, runs it under the counting library (timed: $t3
#                               to $t4) and under the recorder, and `tracegen compare`s the two
#                               traces; prints one line per step and sets $status to 1 when a
#                               benchmark cannot be generated or differs in a call or a byte
# unmodelled_calls BINARY       the MPI functions BINARY and its libraries call (nm -D) that the
#                               recorder does not intercept, apart from local ones; then those it
#                               intercepts but records as opaque events
#
# Timing fidelity (bench/fidelity.sh sets these): with REPEAT=N (N > 1) check_benchmark runs the
# application (run_app's command, in its directory) and the benchmark (without any preloaded
# library) N times each, alternately, so that a host whose pace drifts between minutes slows both
# alike, and prints a `fidelity:` line with both medians of whole-mpiexec wall time and the
# error; with FIDELITY_TABLE=FILE it also appends `NAME NP APP_SECONDS BENCH_SECONDS` to FILE.
#
# Memory (bench/footprint-all.sh --real sets it): with PEAKS=1 check_benchmark runs the
# application and its benchmark once more each, untimed, under a wrapper that writes each rank's
# peak resident set (getrusage), prints a `peak resident memory` line (the largest over the ranks
# of each, and the difference) and with PEAKS_TABLE=FILE appends `NAME NP APP_KIB BENCH_KIB`.
#
# Recorder overhead (bench/recorder-overhead.sh sets it): with RECORDER_OVERHEAD_TABLE=FILE,
# record_app runs the application REPEAT times (default 5) without and with the recorder,
# alternately, prints an `overhead:` line and appends `NAME NP PLAIN_SECONDS RECORDED_SECONDS
# CALLS` to FILE; check_benchmark then does nothing (the benchmark is not what is measured).
#
# Hooks the sourcing script may set: $bench_cflags (how the C benchmark is compiled), the array
# bench_args (options every run of the benchmark takes, e.g. --all-polls), and the
# functions after_generate NP DIR (a line about the C benchmark; default: its length) and
# compare_note NP DIR VERDICT (text that follows the verdict). Each MPI run is wrapped in `timeout`.
#
# Calls the recorder records but tracegen does not model (opaque events: `tracegen inspect` lists
# them) would stop the generation; check_benchmark then names them, generates with
# --skip-unknown (each becomes a comment), says so, and checks every other call: a difference in
# the calls it left out is expected and printed apart.

# rank_peaks and largest_peak (PEAKS=1), as bench/footprint-all.sh and bench/fidelity.sh measure.
. "$(dirname "${BASH_SOURCE[0]}")/../sample-args.sh"

realapps_init() {
  build=$(realpath "${1:-build}")
  shift || true
  nps=("$@")
  [ ${#nps[@]} -gt 0 ] || nps=(2 4)
  recorder=$build/record/libtracegen-record.so
  counter=$build/tests/support/libtracegen-count.so
  tracegen=$build/tools/tracegen/tracegen
  for f in "$recorder" "$counter" "$tracegen"; do
    [ -e "$f" ] || { echo "build $build first (with MPI): $f is missing" >&2; exit 2; }
  done
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  work=$(mktemp -d)
  if [ -n "${KEEP_WORK:-}" ]; then echo "work directory (kept): $work"; else trap 'rm -rf "$work"' EXIT; fi
  status=0
  # BENCH_CFLAGS: the flags benchmarks are compiled with (ctest's `lammps` uses -O1: LAMMPS's
  # 10,000-line benchmark takes 20 s at -O2, twice, and the test counts calls, not time).
  bench_cflags=${bench_cflags:-${BENCH_CFLAGS:--std=c11 -O2 -Wall -Wextra -Werror}}
  [ -n "${bench_args+set}" ] || bench_args=()
}

# enter_rank_dir NP [FILE...]: makes $work/npNP ($dir), copies the FILEs into it, changes to it.
enter_rank_dir() {
  local np=$1
  shift
  dir=$work/np$np
  mkdir -p "$dir"
  [ $# -eq 0 ] || cp "$@" "$dir/"
  cd "$dir"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

run_app() {
  local name=$1 np=$2
  shift 2
  app_name=$name app_cmd=("$@") app_dir=$PWD
  t0=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" "$@" >"$work/run.out" 2>&1 ||
    { echo "$name failed on $np ranks:"; tail -n 20 "$work/run.out"; exit 1; }
  t1=$(now)
}

# whole_run_seconds DIR CMD...: runs CMD under mpiexec in DIR (output to $work/run.out) and
# prints its wall time in seconds; exits 1 if it fails.
whole_run_seconds() {
  local d=$1 a b
  shift
  a=$(now)
  (cd "$d" && timeout 900 mpiexec --oversubscribe "$@" >"$work/run.out" 2>&1) ||
    { echo "a run failed: $*" >&2; tail -n 20 "$work/run.out" >&2; exit 1; }
  b=$(now)
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b - a }'
}

# median X...: the median of the numbers (the mean of the middle two for an even count).
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

record_app() {
  local name=$1 np=$2 dir=$3
  shift 3
  t1=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$dir/app.trace" \
    "$@" >/dev/null 2>"$dir/record.err" ||
    { echo "$name failed under the recorder on $np ranks"; cat "$dir/record.err"; exit 1; }
  t2=$(now)
  events=$("$tracegen" inspect "$dir/app.trace" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
  size=$(stat -c %s "$dir/app.trace")
  [ -z "${RECORDER_OVERHEAD_TABLE:-}" ] || recorder_overhead "$name" "$np" "$dir" "$@"
}

# recorder_overhead NAME NP DIR CMD...: REPEAT whole runs of CMD without and with the recorder,
# alternated; prints an `overhead:` line (medians, ratio, the recorder's added time per MPI call
# of a rank) and appends `NAME NP PLAIN_S RECORDED_S CALLS` to $RECORDER_OVERHEAD_TABLE.
recorder_overhead() {
  local name=$1 np=$2 dir=$3 k calls plain recorded plain_times=() recorded_times=()
  shift 3
  calls=$("$tracegen" inspect "$dir/app.trace" --format json |
    python3 -c 'import json,sys; print(sum(r["calls"] for r in json.load(sys.stdin)["per_rank"]))')
  for ((k = 0; k < ${REPEAT:-5}; ++k)); do
    plain_times+=("$(whole_run_seconds "$PWD" -n "$np" "$@")") || exit 1
    recorded_times+=("$(whole_run_seconds "$PWD" -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_QUIET=1 \
      TRACEGEN_OUTPUT="$dir/overhead.trace" "$@")") || exit 1
  done
  plain=$(median "${plain_times[@]}") recorded=$(median "${recorded_times[@]}")
  echo "  overhead: without the recorder $plain s, with it $recorded s (median of ${REPEAT:-5} whole mpiexec runs" \
       "each, alternated), ratio $(awk -v a="$plain" -v b="$recorded" 'BEGIN { printf "%.3f", b / a }'), $calls MPI" \
       "calls, $(awk -v a="$plain" -v b="$recorded" -v c="$calls" -v p="$np" 'BEGIN { printf "%.0f", (b - a) * 1e9 / (c / p) }') ns per call of a rank"
  echo "$name $np $plain $recorded $calls" >>"$RECORDER_OVERHEAD_TABLE"
}

# Default hooks.
after_generate() { echo "  C: $(wc -l <"$2/bench.c") lines"; }
compare_note() { :; }

# The MPI operations of the trace's opaque events, one per line (none for most applications).
opaque_ops() {
  "$tracegen" inspect "$1" | sed -n '/^opaque events:/,/^$/p' | awk '$1 ~ /^E[0-9]+$/ { print $2 }' | sort -u
}

check_benchmark() {
  local np=$1 dir=$2 same opaque skip=() left=''
  if [ -n "${RECORDER_OVERHEAD_TABLE:-}" ]; then echo "  (benchmark not checked: measuring the recorder's overhead)"; return 0; fi
  opaque=$(opaque_ops "$dir/app.trace")
  if [ -n "$opaque" ]; then
    skip=(--skip-unknown)
    left=$(echo "$opaque" | paste -sd' ')
    echo "  calls tracegen records but does not model: $left; generated with --skip-unknown" \
         "(a comment in the place of each), every other call checked"
  fi
  if "$tracegen" "$dir/app.trace" "${skip[@]}" -o "$dir/bench.ncptl" 2>"$dir/gen-ncptl.err"; then
    echo "  coNCePTuaL: $(wc -l <"$dir/bench.ncptl") lines"
  else
    echo "  coNCePTuaL: not generated: $({ grep -v 'warning' "$dir/gen-ncptl.err" || true; } | head -n 1)"
  fi
  if ! "$tracegen" "$dir/app.trace" "${skip[@]}" -o "$dir/bench.c" 2>"$dir/gen.err"; then
    echo "  C: not generated:"
    { grep -v 'align-collectives' "$dir/gen.err" || true; } | head -n 8 | sed 's/^/    /'
    status=1
    return 0
  fi
  after_generate "$np" "$dir"
  # shellcheck disable=SC2086 # the flags are words
  mpicc $bench_cflags -o "$dir/bench" "$dir/bench.c"
  # The same file against MPICH's header (compile only), where scripts/setup-debian.sh unpacked it.
  local mpich_h=${TRACEGEN_MPICH_INCLUDE:-}
  [ -n "$mpich_h" ] || mpich_h=$(dirname "$(find "${XDG_CACHE_HOME:-$HOME/.cache}/tracegen/mpich" -name mpi.h 2>/dev/null |
                                              head -n 1)" 2>/dev/null)
  if [ -n "$mpich_h" ] && [ -r "$mpich_h/mpi.h" ]; then
    # shellcheck disable=SC2086 # the flags are words
    if cc $bench_cflags -c -o "$dir/bench.mpich.o" -I"$mpich_h" "$dir/bench.c" 2>"$dir/mpich.err"; then
      echo "  C: compiles with MPICH's header too ($bench_cflags)"
    else
      echo "  C: does NOT compile with MPICH's header ($bench_cflags):"; head -n 20 "$dir/mpich.err" | sed 's/^/    /'
      status=1
    fi
  fi

  t3=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$counter" TRACEGEN_COUNT_OUTPUT="$dir/counts.json" \
    "$dir/bench" "${bench_args[@]}" >"$dir/bench.out" 2>&1 || { echo "$np ranks: the benchmark failed"; cat "$dir/bench.out"; exit 1; }
  t4=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$dir/bench.trace" \
    "$dir/bench" "${bench_args[@]}" >/dev/null 2>&1 || { echo "$np ranks: the benchmark failed under the recorder"; exit 1; }
  if "$tracegen" compare "$dir/app.trace" "$dir/bench.trace" >"$dir/compare.txt"; then
    same="identical calls and bytes on all $np ranks"
  elif [ -n "$opaque" ]; then
    # The calls left out differ by construction (the application's count vs none); any other
    # difference is one.
    grep '^rank' "$dir/compare.txt" | grep -v -F -f <(echo "$opaque" | sed 's/.*/: &: /') >"$dir/differences.txt" || true
    if [ -s "$dir/differences.txt" ] || grep -q '^ranks:\|more differences' "$dir/compare.txt"; then
      same="calls DIFFER: $(wc -l <"$dir/differences.txt") differences besides the calls left out" \
           "(first: $(head -n 1 "$dir/differences.txt"))"
      status=1
    else
      same="identical calls and bytes on all $np ranks but for the calls left out ($left)"
    fi
  else
    same="calls DIFFER: $(grep -c '^rank' "$dir/compare.txt") differences (first: $(grep -m1 '^rank' "$dir/compare.txt"))"
    status=1
  fi

  echo "  C benchmark: $same$(compare_note "$np" "$dir" "$same")"
  echo "  wall time: application $(elapsed "$t0" "$t1") s, benchmark $(elapsed "$t3" "$t4") s under the counting" \
       "library ($(tail -n 1 "$dir/bench.out"))"
  if [ -n "${PEAKS:-}" ]; then
    # One more untimed run of each under a wrapper that writes each rank's peak resident set.
    if (cd "$app_dir" && rank_peaks "np$np.app" "${app_cmd[@]}") &&
       (cd "$dir" && rank_peaks "np$np.bench" "$dir/bench" "${bench_args[@]}"); then
      local pa pb
      pa=$(largest_peak "np$np.app") pb=$(largest_peak "np$np.bench")
      echo "  peak resident memory a rank (the largest over the ranks): application $(awk -v k="$pa" 'BEGIN { printf "%.1f", k / 1024 }') MB," \
           "benchmark $(awk -v k="$pb" 'BEGIN { printf "%.1f", k / 1024 }') MB," \
           "$(awk -v a="$pa" -v b="$pb" 'BEGIN { printf "%+.1f%%", (b / a - 1) * 100 }')"
      [ -z "${PEAKS_TABLE:-}" ] || echo "${app_name:-app} $np $pa $pb" >>"$PEAKS_TABLE"
    else
      echo "  peak resident memory: a run failed ($(tail -n 1 "$work/np$np.app.err" "$work/np$np.bench.err" 2>/dev/null | tail -n 1))"
      status=1
    fi
  fi
  if [ "${REPEAT:-1}" -gt 1 ]; then
    local k app_times=() bench_times=() app bench
    for ((k = 0; k < REPEAT; ++k)); do
      app_times+=("$(whole_run_seconds "$app_dir" -n "$np" "${app_cmd[@]}")") || exit 1
      bench_times+=("$(whole_run_seconds "$dir" -n "$np" "$dir/bench" "${bench_args[@]}")") || exit 1
    done
    app=$(median "${app_times[@]}") bench=$(median "${bench_times[@]}")
    echo "  fidelity: application $app s, benchmark $bench s (median of $REPEAT whole mpiexec runs each," \
         "alternated), error $(awk -v a="$app" -v b="$bench" 'BEGIN { printf "%+.1f%%", (b / a - 1) * 100 }')"
    [ -z "${FIDELITY_TABLE:-}" ] || echo "${app_name:-app} $np $app $bench" >>"$FIDELITY_TABLE"
  fi
}

# Local MPI functions: no message, nothing to replay (sizes, ranks, datatypes, groups, attributes,
# error handlers, topology queries, clocks).
local_mpi_calls='^MPI_(Comm_rank|Comm_size|Comm_group|Comm_compare|Comm_test_inter|Comm_remote_(size|group)|Comm_(get|set)_name|Comm_(get|set|delete)_attr|Comm_(create|free)_keyval|Comm_(get|set|call)_errhandler|Type_.*|Group_.*|Get_.*|Info_.*|Op_.*|Errhandler_.*|Error_.*|Status_.*|Cart_(coords|rank|get|shift|map)|Cartdim_get|Graph_(get|map|neighbors|neighbors_count)|Graphdims_get|Topo_test|Dims_create|Pack.*|Unpack.*|Wtime|Wtick|Initialized|Finalized|Abort|Query_thread|Is_thread_main|Alloc_mem|Free_mem|Address|Pcontrol|Reduce_local|Test_cancelled|Request_get_status|Win_(get|set)_(name|errhandler|attr)|Win_get_group|Win_delete_attr|Win_call_errhandler|[A-Za-z_]*_(c2f|f2c))$'

unmodelled_calls() {
  local bin=$1 libs called intercepted opaque
  libs=$(ldd "$bin" | awk '/=>/ { print $3 }' | grep -v -E '/lib(mpi|mpi_cxx|mpi_mpifh|open-rte|open-pal)\.so')
  # shellcheck disable=SC2086 # one path per word
  called=$(nm -D --undefined-only "$bin" $libs 2>/dev/null | awk '{ print $NF }' | grep -E '^MPI_[A-Z]' | sort -u)
  intercepted=$(nm -D --defined-only "$recorder" | awk '{ print $NF }' | grep '^MPI_' | sort -u)
  comm -23 <(echo "$called") <(echo "$intercepted") | grep -v -E "$local_mpi_calls" | paste -sd' ' | sed 's/^$/none/' | tr -d '\n'
  # Intercepted but recorded as opaque events (ir/Ops.def, OpKind Opaque or OpaqueRequest).
  opaque=$(sed -n 's/^TRACEGEN_OP([A-Za-z_]*, "\(MPI_[A-Za-z_]*\)", [0-9]*, Opaque[A-Za-z]*,.*/\1/p' \
             "$(dirname "${BASH_SOURCE[0]}")/../../ir/Ops.def" | sort -u)
  echo "; intercepted but recorded as opaque events (not modelled):" \
       "$(comm -12 <(echo "$called") <(echo "$opaque") | paste -sd' ' | sed 's/^$/none/')"
}
