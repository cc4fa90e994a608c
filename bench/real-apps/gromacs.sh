#!/usr/bin/env bash
# GROMACS (Debian's gromacs package, its MPI build gmx_mpi) recorded and turned into benchmarks,
# at 2 and 4 ranks.
#
# The system is a box of SPC/E water (3 nm a side, 884 molecules) that GROMACS's own tools
# prepare: `gmx_mpi solvate` fills the box from the bundled spc216 configuration, the topology
# takes the OPLS-AA force field and its SPC/E water (both bundled), and `gmx_mpi grompp` makes the
# run input of a short MD run (STEPS steps of 2 fs, PME electrostatics, v-rescale thermostat,
# constrained bonds). mdrun then runs on NP ranks with one OpenMP thread each: domain
# decomposition (halo exchange with the neighbouring domains by MPI_Sendrecv/Isend/Irecv), PME's
# 3-D FFT redistribution, and the reductions of the energies. PME tuning is off (-notunepme) so
# that the run does not depend on the timing of the first steps.
#
# For each rank count the script records mdrun, generates the C and coNCePTuaL benchmarks,
# compiles the C one with -Werror and runs it under the PMPI counting library, then once more
# under the recorder so that `tracegen compare` can check calls and bytes rank by rank (common.sh).
# It prints the MPI functions gmx_mpi and its libraries call that the recorder does not intercept,
# then per rank count the events and size of the trace, whether the calls are identical, and the
# wall times of the application (without the recorder) and of the benchmark (under the counting
# library). Installs gromacs with apt-get if gmx_mpi is missing (about half a minute).
#
# Exit status 1 if a benchmark cannot be generated, fails, or differs from the application in
# any call or byte.
#
# Usage: bench/real-apps/gromacs.sh [BUILD_DIR [NP...]]   (defaults: build, 2 and 4 ranks)
#        STEPS=500 bench/real-apps/gromacs.sh ...          (MD steps, default 200)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
realapps_init "$@"
steps=${STEPS:-200}
export GMX_MAXBACKUP=-1  # repeated runs overwrite md.* rather than keep numbered backups (99 at most)
command -v gmx_mpi >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y gromacs >/dev/null
gmx=$(command -v gmx_mpi)

echo "gromacs: MPI functions gmx_mpi and its libraries call that the recorder does not intercept (local ones aside):" \
     "$(unmodelled_calls "$gmx")"

# The water box and the run input, once for all rank counts.
cd "$work"
cat >topol.top <<EOF
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spce.itp"

[ system ]
SPC/E water

[ molecules ]
EOF
cat >md.mdp <<EOF
integrator      = md
dt              = 0.002
nsteps          = $steps
nstlog          = 100
nstenergy       = 100
nstcalcenergy   = 100
cutoff-scheme   = Verlet
coulombtype     = PME
rcoulomb        = 0.9
rvdw            = 0.9
fourierspacing  = 0.12
tcoupl          = v-rescale
tc-grps         = System
tau-t           = 0.1
ref-t           = 300
constraints     = h-bonds
gen-vel         = yes
gen-temp        = 300
gen-seed        = 1
EOF
"$gmx" -quiet solvate -cs spc216 -box 3 3 3 -o conf.gro -p topol.top >solvate.log 2>&1 ||
  { echo "gmx_mpi solvate failed"; cat solvate.log; exit 1; }
"$gmx" -quiet grompp -f md.mdp -c conf.gro -p topol.top -o md.tpr >grompp.log 2>&1 ||
  { echo "gmx_mpi grompp failed"; cat grompp.log; exit 1; }
molecules=$(awk '$1 == "SOL" { print $2 }' topol.top)

for np in "${nps[@]}"; do
  enter_rank_dir "$np" "$work/md.tpr"

  mdrun=("$gmx" -quiet mdrun -ntomp 1 -notunepme -s md.tpr -deffnm md)
  run_app gromacs "$np" "${mdrun[@]}"
  record_app gromacs "$np" "$dir" "${mdrun[@]}"

  echo "gromacs (SPC/E water, $molecules molecules in a 3 nm box, PME, $steps steps) on $np ranks: $events events," \
       "trace $size bytes; application $(elapsed "$t0" "$t1") s (under the recorder $(elapsed "$t1" "$t2") s)"
  check_benchmark "$np" "$dir"
done
exit $status
