#!/usr/bin/env bash
# HPC Challenge (Debian's hpcc 1.5) recorded and turned into benchmarks, at 2 and 4 ranks.
#
# hpcc completes its RandomAccess test with wildcard receives polled by MPI_Test/MPI_Testany
# (millions of polls), so it exercises the recorder's compression of polling loops, the
# simulation of successful and failed polls in resolve-wildcards, and the benchmark's replay of
# them. For each rank count the script writes a small hpccinf.txt (N=1000 unless N is set,
# NB=80; P=1 Q=2 at 2 ranks, P=2 Q=2 at 4), records hpcc, generates the C and coNCePTuaL
# benchmarks, compiles the C one and runs it under the PMPI counting library, then once more
# under the recorder so that `tracegen compare` can check calls and bytes rank by rank (the Test
# family by its successful calls: polls are timing-dependent and printed apart). It prints the
# events and size of the trace, whether the calls are identical, and the wall times of the
# application (without the recorder) and of the benchmark (under the counting library).
# Installs hpcc with apt-get if it is missing. Every MPI run is wrapped in `timeout`.
#
# Usage: bench/real-apps/hpcc.sh [BUILD_DIR [NP...]]   (defaults: build, 2 and 4 ranks)
#        N=3000 bench/real-apps/hpcc.sh ...             (HPL's matrix order, default 1000; it also
#                                                        sizes the other tests' arrays)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# RandomAccess tests for incoming updates once per update it makes, whether or not one is due:
# its failed polls are work, which the benchmark makes too (docs/c-backend.md, "Polling tests").
bench_args=(--all-polls)
realapps_init "$@"
order=${N:-1000}
command -v hpcc >/dev/null || apt-get install -y hpcc >/dev/null
echo "hpcc: MPI functions hpcc and its libraries call that the recorder does not intercept (local ones aside):" \
     "$(unmodelled_calls "$(command -v hpcc)")"
template=/usr/share/doc/hpcc/examples/_hpccinf.txt
[ -r "$template" ] || { echo "no $template (the hpcc package's example input)" >&2; exit 2; }

after_generate() { { grep -h 'resolve-wildcards' "$2/gen.err" || true; } | head -n 2 | cut -c1-300 | sed 's/^/  /'; }
compare_note() {
  case $3 in identical*) printf ' (Test family: successful calls)' ;; esac
  printf '; %s rank/operation pairs poll differently' "$(grep -c 'polls that completed nothing' "$2/compare.txt" || true)"
}

for np in "${nps[@]}"; do
  enter_rank_dir "$np"
  p=$((np == 2 ? 1 : 2))
  # Lines 6 (N), 8 (NB), 11 (P) and 12 (Q) of the HPL part of the input.
  sed -e "6s/^[0-9]*/$order/" -e '8s/^[0-9]*/80/' -e "11s/^[0-9]*/$p/" -e '12s/^[0-9]*/2/' "$template" >"$dir/hpccinf.txt"

  run_app hpcc "$np" hpcc
  rm -f hpccoutf.txt
  record_app hpcc "$np" "$dir" hpcc

  echo "hpcc (N=$order) on $np ranks: $events events, trace $size bytes;" \
       "application $(elapsed "$t0" "$t1") s (under the recorder $(elapsed "$t1" "$t2") s)"
  check_benchmark "$np" "$dir"
done
