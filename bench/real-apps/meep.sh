#!/usr/bin/env bash
# Meep (Debian's meep-openmpi: the FDTD solver's Scheme interface, `meep`, on the Open MPI
# build of libmeep) recorded and turned into benchmarks, at 2 and 4 ranks.
#
# The simulation is a small 2-D one: a straight dielectric waveguide (epsilon 12, width 1) in a
# 16 x 8 cell with PML boundaries, driven by a continuous Ez source, at resolution 10 for TIME
# time units (20 steps per unit), with the permittivity written at the start and Ez at the end
# (HDF5 files, through the parallel HDF5 library). Meep splits the cell into one chunk per rank
# and exchanges the chunk boundaries' fields every step; it sums energies and checks the run
# with collectives.
#
# For each rank count the script records meep, generates the C and coNCePTuaL benchmarks,
# compiles the C one with -Werror and runs it under the PMPI counting library, then once more
# under the recorder so that `tracegen compare` can check calls and bytes rank by rank (common.sh;
# calls tracegen does not model are named and left out with --skip-unknown, and the rest is
# checked). It prints the MPI functions meep and its libraries call that the recorder does not
# intercept, then per rank count the events and size of the trace, whether the calls are
# identical, and the wall times of the application (without the recorder) and of the benchmark
# (under the counting library). Installs meep-openmpi with apt-get if it is missing.
#
# Exit status 1 if a benchmark cannot be generated, fails, or differs from the application in
# any call or byte (besides the calls left out).
#
# Usage: bench/real-apps/meep.sh [BUILD_DIR [NP...]]   (defaults: build, 2 and 4 ranks)
#        TIME=200 bench/real-apps/meep.sh ...          (simulated time, default 20)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
realapps_init "$@"
time_units=${TIME:-20}
# meep-openmpi's `meep` (the serial package, meep, installs one of the same name).
meep=/usr/bin/meep
ldd "$meep" 2>/dev/null | grep -q 'libmpi\.so' ||
  DEBIAN_FRONTEND=noninteractive apt-get install -y meep-openmpi >/dev/null

echo "meep: MPI functions meep and its libraries call that the recorder does not intercept (local ones aside):" \
     "$(unmodelled_calls "$meep")"

cat >"$work/wg.ctl" <<EOF
; A straight dielectric waveguide driven by a continuous Ez source, in 2-D.
(set! geometry-lattice (make lattice (size 16 8 no-size)))
(set! geometry (list (make block (center 0 0) (size infinity 1 infinity)
                           (material (make dielectric (epsilon 12))))))
(set! sources (list (make source (src (make continuous-src (frequency 0.15)))
                          (component Ez) (center -7 0))))
(set! pml-layers (list (make pml (thickness 1.0))))
(set! resolution 10)
(run-until $time_units (at-beginning output-epsilon) (at-end output-efield-z))
EOF

for np in "${nps[@]}"; do
  enter_rank_dir "$np" "$work/wg.ctl"

  run_app meep "$np" "$meep" wg.ctl
  rm -f ./*.h5
  record_app meep "$np" "$dir" "$meep" wg.ctl

  echo "meep (2-D waveguide, 160 x 80 cells, $((time_units * 20)) steps) on $np ranks: $events events, trace $size bytes;" \
       "application $(elapsed "$t0" "$t1") s (under the recorder $(elapsed "$t1" "$t2") s)"
  check_benchmark "$np" "$dir"
done
exit $status
