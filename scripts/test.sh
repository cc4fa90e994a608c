#!/usr/bin/env bash
# Sets up, builds and runs every test: the unit and end-to-end tests in a normal build, then
# the unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
jobs=$(nproc 2>/dev/null || echo 2)
# MPICH's header as unpacked by setup-debian.sh, for the second-MPI compile checks.
mpich_h=$(find "${TRACEGEN_MPICH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tracegen/mpich}" -name mpi.h 2>/dev/null | head -1)
if [ -n "$mpich_h" ]; then export TRACEGEN_MPICH_INCLUDE=${TRACEGEN_MPICH_INCLUDE:-$(dirname "$mpich_h")}; fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRACEGEN_SANITIZE=ON -DTRACEGEN_BUILD_BENCH=OFF
cmake --build build-sanitize -j"$jobs" --target tracegen_unit_tests
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize -L unit --output-on-failure -j"$jobs"

# Fuzzing: each libFuzzer target for about 45 s with a fixed seed (clang-14; its own build directory).
bash scripts/fuzz-ci.sh
