#!/usr/bin/env bash
# LAMMPS (Debian's lammps package) recorded and turned into benchmarks, at 2 and 4 ranks.
#
# LAMMPS builds its processor grid with MPI_Cart_create (and frees it at the end), finds its
# neighbours with MPI_Cart_shift and exchanges atoms with them, so it exercises the recorder's
# topology constructors and the benchmark's replay of them. The input is the classic
# Lennard-Jones melt (in.melt: 3d lj units, fcc 0.8442, a box of BOX^3 unit cells, LMP_STEPS steps).
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
#        LMP_STEPS=100 bench/real-apps/lammps.sh ...     (time steps, default 250)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
realapps_init "$@"
box=${BOX:-12} steps=${LMP_STEPS:-250}
lmp=$(command -v lmp || command -v lmp_mpi || true)
if [ -z "$lmp" ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y lammps >/dev/null
  lmp=$(command -v lmp || command -v lmp_mpi)
fi
echo "lammps: MPI functions $lmp and its libraries call that the recorder does not intercept (local ones aside):" \
     "$(unmodelled_calls "$lmp")"

after_generate() {
  echo "  C: $(wc -l <"$2/bench.c") lines; $(grep -c 'MPI_Cart_create(' "$2/bench.c" || true) MPI_Cart_create call(s)"
}

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
run             $steps
EOF

for np in "${nps[@]}"; do
  enter_rank_dir "$np" "$work/in.melt"

  run_app lammps "$np" "$lmp" -in in.melt -log none -screen none
  record_app lammps "$np" "$dir" "$lmp" -in in.melt -log none -screen none
  carts=$(zstdcat -f "$dir/app.trace" | grep -c 'MPI_Cart_create' || true)  # compressed by default

  echo "lammps (in.melt, ${box}^3 cells, $steps steps) on $np ranks: $events events ($carts MPI_Cart_create), trace $size bytes;" \
       "application $(elapsed "$t0" "$t1") s (under the recorder $(elapsed "$t1" "$t2") s)"
  check_benchmark "$np" "$dir"
done
exit $status
