# Sourced by bench/recorder-overhead.sh, bench/replay-overhead.sh, bench/benchmark-fidelity.sh
# and bench/fidelity.sh: what their timing runs of the sample applications (samples/apps) share.
#
# sample_args APP        the base arguments of a sample (the first is its iteration count; rma_f
#                        takes none): runs of 0.3-3 s at 2 ranks, much of it mpiexec's start-up
# now                    the wall clock in seconds
# median X...            the median of the numbers (the mean of the middle two for an even count)
# seconds_between A B    B - A, three decimals
# mpi_startup_seconds    the median whole-run time of 3 runs of an MPI program that only starts
#                        and stops (mpiexec's start-up and shut-down), at $np ranks; compiles it
#                        in $work
# timed_pair ...         alternated timing runs of two commands (below)
# scaled_sample_args APP sample_args APP with the iteration count scaled, from one timed run at
#                        $np ranks, so that a whole run takes about $run_seconds, $startup of it
#                        being start-up; ARGS_<APP> in the environment sets the arguments as
#                        they are. apitour keeps its base count (its iterations do not fold, see
#                        below); so does a sample whose timed run fails.
# cpu_busy_percent [S]   the share of all CPUs in use over S seconds (default 3), from /proc/stat
# require_idle_machine   status 0 once a 3 s window has at most IDLE_BUSY_PERCENT (20) of the CPUs
#                        in use, trying for IDLE_WAIT seconds (60); else prints why and status 1.
#                        TRACEGEN_BENCH_BUSY_OK=1 times anyway, saying so on standard error
# rank_peaks NAME CMD... runs CMD at $np ranks (mpiexec --oversubscribe) under bench/peak-rss.c
#                        (compiled into $work once), which writes each rank's peak resident set
#                        in KiB to $work/NAME.peak.RANK; status 1 if the run fails (its stderr:
#                        NAME.err)
# largest_peak NAME      the largest of those, in KiB
sample_args() {
  case $1 in
    stencil2d) echo "30000 64" ;;
    stencil_strong) echo "20000 240" ;;
    halo3d) echo "5000 16" ;;
    wavefront) echo "1000 16 32" ;;
    sweep) echo "5000 8 24" ;;
    fft) echo "10000 64" ;;
    cg) echo "30000 256" ;;
    ring) echo "20000 1024" ;;
    ring_f) echo "20000" ;;
    apitour) echo "300" ;;
    polling) echo "20000 256" ;;
    persist) echo "20000 256" ;;
    persist_f) echo "20000" ;;
    nbc) echo "20000 32" ;;
    topo) echo "20000 64" ;;
    rma) echo "5000 64" ;;
    rma_f) echo "" ;;
    mpiio) echo "500 256" ;;
  esac
}

# Every sample, in the order the reports list them.
all_samples=(stencil2d stencil_strong halo3d wavefront sweep fft cg ring ring_f apitour polling persist persist_f nbc
             topo rma rma_f mpiio)

now() { date +%s.%N; }
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
seconds_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

mpi_startup_seconds() {
  cat >"$work/empty.c" <<'EOF_C'
#include <mpi.h>
int main(int argc, char** argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
EOF_C
  mpicc -o "$work/empty" "$work/empty.c"
  local k a b t=()
  for ((k = 0; k < 3; ++k)); do
    a=$(now); mpiexec --oversubscribe -n "$np" "$work/empty" >/dev/null 2>&1; b=$(now)
    t+=("$(seconds_between "$a" "$b")")
  done
  median "${t[@]}"
}

scaled_sample_args() {
  local override="ARGS_$1" base a b
  if [ -n "${!override:-}" ]; then echo "${!override}"; return; fi
  base=$(sample_args "$1")
  # apitour's iterations do not repeat exactly (which requests its MPI_Waitsome completes depends
  # on timing), so they do not fold into a loop and its trace grows with them: 1,200 iterations
  # make 14,092 events and a C benchmark of 10 MB that gcc -O2 takes minutes and gigabytes to
  # compile. It keeps its base count. rma_f takes no arguments.
  if [ "$1" = apitour ] || [ -z "$base" ]; then echo "$base"; return; fi
  a=$(now)
  # shellcheck disable=SC2086 # the arguments are words
  timeout 900 mpiexec --oversubscribe -n "$np" "$apps/$1" $base >/dev/null 2>&1 || { echo "$base"; return; }
  b=$(now)
  echo "$base" | awk -v t="$(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')" -v s0="$startup" -v want="$run_seconds" '
    { f = (want - s0) / (t - s0 > 0.01 ? t - s0 : 0.01); $1 = int($1 * f + 0.5); if ($1 < 1) $1 = 1; print }'
}

# timed_pair MPIEXEC A_CMD... -- B_CMD...: "A_S B_S", the median wall times of $REPEAT whole
# runs of each command under MPIEXEC at $np ranks (options of MPIEXEC lead each command), A's
# and B's runs alternated so that a machine whose pace drifts (a shared host: a third from one
# minute to the next) slows both alike; status 1 if a run fails (its output in $work/run.out).
timed_pair() {
  local mpiexec=$1 k a b first=() second=() at=() bt=()
  shift
  while [ "$1" != "--" ]; do first+=("$1"); shift; done
  shift
  second=("$@")
  for ((k = 0; k < REPEAT; ++k)); do
    a=$(now)
    timeout 900 "$mpiexec" -n "$np" "${first[@]}" >"$work/run.out" 2>&1 || return 1
    b=$(now)
    at+=("$(seconds_between "$a" "$b")")
    a=$(now)
    timeout 900 "$mpiexec" -n "$np" "${second[@]}" >"$work/run.out" 2>&1 || return 1
    b=$(now)
    bt+=("$(seconds_between "$a" "$b")")
  done
  echo "$(median "${at[@]}") $(median "${bt[@]}")"
}

cpu_busy_percent() {
  local a b
  a=$(head -n 1 /proc/stat)
  sleep "${1:-3}"
  b=$(head -n 1 /proc/stat)
  # Fields after "cpu": user nice system idle iowait irq softirq steal; idle and iowait are idle.
  awk -v a="$a" -v b="$b" 'BEGIN {
    n = split(a, x); split(b, y); total = 0; idle = 0
    for (i = 2; i <= n && i <= 9; ++i) { d = y[i] - x[i]; total += d; if (i == 5 || i == 6) idle += d }
    printf "%d", (total > 0 ? 100 * (total - idle) / total : 0) }'
}

require_idle_machine() {
  local limit=${IDLE_BUSY_PERCENT:-20} deadline=$((SECONDS + ${IDLE_WAIT:-60})) busy
  while :; do
    busy=$(cpu_busy_percent 3)
    [ "$busy" -le "$limit" ] && return 0
    if [ "${TRACEGEN_BENCH_BUSY_OK:-0}" = 1 ]; then
      echo "warning: $busy% of the CPUs in use by others; timing anyway (TRACEGEN_BENCH_BUSY_OK=1): the times mean little" >&2
      return 0
    fi
    if [ $SECONDS -ge "$deadline" ]; then
      echo "the machine is busy: $busy% of the CPUs in use by others over 3 s (at most $limit% to time; waited ${IDLE_WAIT:-60} s)"
      return 1
    fi
  done
}

tracegen_bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rank_peaks() {
  local name=$1
  shift
  if [ ! -x "$work/peak-rss" ]; then
    cc -std=c11 -O2 -o "$work/peak-rss" "$tracegen_bench_dir/peak-rss.c" 2>"$work/$name.err" || return 1
  fi
  rm -f "$work/$name.peak".*
  timeout 600 mpiexec --oversubscribe -n "$np" "$work/peak-rss" "$work/$name.peak" "$@" >/dev/null 2>"$work/$name.err" &&
    [ "$(ls "$work/$name.peak".* 2>/dev/null | wc -l)" -eq "$np" ]
}

largest_peak() { cat "$work/$1.peak".* | sort -n | tail -n 1; }
