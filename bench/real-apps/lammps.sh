#!/usr/bin/env bash
# LAMMPS (Debian's lammps package) recorded and turned into benchmarks, at 2 and 4 ranks.
#
# LAMMPS builds its processor grid with MPI_Cart_create (and frees it at the end), finds its
# neighbours with MPI_Cart_shift and exchanges atoms with them, so it exercises the recorder's
# topology constructors and the benchmark's replay of them. The input is the classic
# Lennard-Jones melt (in.melt: 3d lj units, fcc 0.8442, a box of BOX^3 unit cells, 250 steps).
# For each rank count the script records LAMMPS, generates the C and coNCePTuaL benchmarks,
# compiles the C one with -Werror and runs it under the PMPI counting library, then once more
# under the recorder so that `tracegen compare` can check calls and bytes rank by rank. It
# prints the events and size of the trace, whether the calls are identical, and the wall times
# of the application (without the recorder) and of the benchmark (under the counting library).
# Installs lammps with apt-get if it is missing. Every MPI run is wrapped in `timeout`.
#
# Exit status 1 if a benchmark cannot be generated, fails, or differs from the application in
# any call or byte (the end-to-end test `lammps` runs it with BOX=4, see tests/CMakeLists.txt).
#
# Usage: bench/real-apps/lammps.sh [BUILD_DIR [NP...]]   (defaults: build, 2 and 4 ranks)
#        BOX=20 bench/real-apps/lammps.sh ...            (box edge in unit cells, default 12)
set -euo pipefail
build=$(realpath "${1:-build}")
shift || true
nps=("$@")
[ ${#nps[@]} -gt 0 ] || nps=(2 4)
box=${BOX:-12}
recorder=$build/record/libtracegen-record.so
counter=$build/tests/support/libtracegen-count.so
tracegen=$build/tools/tracegen/tracegen
for f in "$recorder" "$counter" "$tracegen"; do
  [ -e "$f" ] || { echo "build $build first (with MPI): $f is missing" >&2; exit 2; }
done
lmp=$(command -v lmp || command -v lmp_mpi || true)
if [ -z "$lmp" ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y lammps >/dev/null
  lmp=$(command -v lmp || command -v lmp_mpi)
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

status=0
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

cat >"$work/in.melt" <<EOF
# 3d Lennard-Jones melt
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 $box 0 $box 0 $box
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 3.0 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    every 20 delay 0 check no
fix             1 all nve
thermo          50
run             250
EOF

for np in "${nps[@]}"; do
  dir=$work/np$np
  mkdir -p "$dir"
  cp "$work/in.melt" "$dir/"
  cd "$dir"

  t0=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" "$lmp" -in in.melt -log none -screen none >/dev/null 2>&1 ||
    { echo "lammps failed on $np ranks"; exit 1; }
  t1=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$dir/app.trace" \
    "$lmp" -in in.melt -log none -screen none >/dev/null 2>"$dir/record.err" ||
    { echo "lammps failed under the recorder on $np ranks"; cat "$dir/record.err"; exit 1; }
  t2=$(now)
  events=$("$tracegen" inspect "$dir/app.trace" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
  size=$(stat -c %s "$dir/app.trace")
  carts=$(zstdcat -f "$dir/app.trace" | grep -c 'MPI_Cart_create' || true)  # compressed by default

  echo "lammps (in.melt, ${box}^3 cells, 250 steps) on $np ranks: $events events ($carts MPI_Cart_create), trace $size bytes;" \
       "application $(elapsed "$t0" "$t1") s (under the recorder $(elapsed "$t1" "$t2") s)"
  if "$tracegen" "$dir/app.trace" -o "$dir/bench.ncptl" 2>"$dir/gen-ncptl.err"; then
    echo "  coNCePTuaL: $(wc -l <"$dir/bench.ncptl") lines"
  else
    echo "  coNCePTuaL: not generated: $({ grep -v 'warning' "$dir/gen-ncptl.err" || true; } | head -n 1)"
  fi
  if ! "$tracegen" "$dir/app.trace" -o "$dir/bench.c" 2>"$dir/gen.err"; then
    echo "  C: not generated:"
    { grep -v 'align-collectives' "$dir/gen.err" || true; } | head -n 8 | sed 's/^/    /'
    cd - >/dev/null
    status=1
    continue
  fi
  echo "  C: $(wc -l <"$dir/bench.c") lines; $(grep -c 'MPI_Cart_create(' "$dir/bench.c" || true) MPI_Cart_create call(s)"
  mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$dir/bench" "$dir/bench.c"

  t3=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$counter" TRACEGEN_COUNT_OUTPUT="$dir/counts.json" \
    "$dir/bench" >"$dir/bench.out" 2>&1 || { echo "$np ranks: the benchmark failed"; cat "$dir/bench.out"; exit 1; }
  t4=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$dir/bench.trace" \
    "$dir/bench" >/dev/null 2>&1 || { echo "$np ranks: the benchmark failed under the recorder"; exit 1; }
  if "$tracegen" compare "$dir/app.trace" "$dir/bench.trace" >"$dir/compare.txt"; then
    same="identical calls and bytes on all $np ranks"
  else
    same="calls DIFFER: $(grep -c '^rank' "$dir/compare.txt") differences (first: $(grep -m1 '^rank' "$dir/compare.txt"))"
    status=1
  fi

  echo "  C benchmark: $same"
  echo "  wall time: application $(elapsed "$t0" "$t1") s, benchmark $(elapsed "$t3" "$t4") s under the counting" \
       "library ($(tail -n 1 "$dir/bench.out"))"
  cd - >/dev/null
done
exit $status
