#!/usr/bin/env bash
# Installs what tracegen needs to build and test on Debian 12 (bookworm). Idempotent: does
# nothing when every package is already there.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  ccache  # rebuilds from the cache where ~/.cache outlives a run (CMakeLists.txt picks it up)
  libfmt-dev libzstd-dev zstd libcli11-dev nlohmann-json3-dev libboost-graph-dev libkainjow-mustache-dev
  libeigen3-dev  # least squares for the scaling models of extrap/
  libgtest-dev libgmock-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev gfortran
  libunwind8
  libcairo2-dev  # inspect's pictures (viz/): SVG and PNG surfaces, no display needed
  libdw-dev  # call-site names in the recorder: libdwfl.h to build, libdw.so.1 at MPI_Finalize (record/FrameNames.h)
  clang-14 libclang-rt-14-dev
  python3
  libsimgrid-dev  # SimGrid SMPI (smpicc, smpirun): benchmarks on a simulated machine (docs/simulation.md, tracegen simulate)
  lammps  # a real application for the end-to-end test `lammps` (bench/real-apps/lammps.sh)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
updated=0
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  updated=1
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# MPICH's header, so that tests can check that generated benchmarks also compile against a
# second MPI (GCC 12 warns on some calls with MPICH 4.0.2's header and not with Open MPI's).
# The package is unpacked into a private directory, not installed: Open MPI stays the MPI
# of mpicc and mpiexec. scripts/test.sh passes the directory on as TRACEGEN_MPICH_INCLUDE.
mpich_dir=${TRACEGEN_MPICH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tracegen/mpich}
if ! find "$mpich_dir" -name mpi.h 2>/dev/null | grep -q .; then
  echo "setup: unpacking MPICH's header into $mpich_dir"
  [ $updated -eq 1 ] || $SUDO apt-get update -qq
  tmp=$(mktemp -d)
  chmod 777 "$tmp"  # apt's download runs as the _apt user
  if (cd "$tmp" && apt-get download -qq libmpich-dev >/dev/null 2>&1); then
    mkdir -p "$mpich_dir"
    dpkg -x "$tmp"/libmpich-dev_*.deb "$mpich_dir"
  else
    echo "setup: warning: could not download libmpich-dev; the MPICH-header compile checks will be skipped" >&2
  fi
  rm -rf "$tmp"
fi
