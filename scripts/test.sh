#!/usr/bin/env bash
# Sets up, builds and runs every test: the end-to-end tests in a Release build (GCC), then the
# unit tests under AddressSanitizer and UndefinedBehaviorSanitizer and the
# libFuzzer targets for a short while (clang-14). TRACEGEN_BUILD_TYPE picks the first build's
# type (default Release: what users build first).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's wall time, so that a CI log shows where its minutes go.
stage_start=$SECONDS
stage() { echo "test.sh: $1: $((SECONDS - stage_start)) s"; stage_start=$SECONDS; }
bash scripts/setup-debian.sh
stage setup
jobs=$(nproc 2>/dev/null || echo 2)
# MPICH's header as unpacked by setup-debian.sh, for the second-MPI compile checks.
mpich_h=$(find "${TRACEGEN_MPICH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tracegen/mpich}" -name mpi.h 2>/dev/null | head -1)
if [ -n "$mpich_h" ]; then export TRACEGEN_MPICH_INCLUDE=${TRACEGEN_MPICH_INCLUDE:-$(dirname "$mpich_h")}; fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=${TRACEGEN_BUILD_TYPE:-Release}
cmake --build build -j"$jobs"
stage "build (GCC)"
# The end-to-end tests here; the unit tests, compiled above with GCC's warnings as errors, run
# once, below, under the sanitizers (running them here too cost CI 70 s and checked nothing
# the sanitized run does not).
ctest --test-dir build -LE unit --output-on-failure -j"$jobs"
stage "tests (GCC)"

# One clang-14 build serves both the unit tests under AddressSanitizer and
# UndefinedBehaviorSanitizer and the libFuzzer targets (fuzz/, built with the same sanitizers and
# the fuzzer's coverage instrumentation, which changes nothing the tests check): one build of
# the libraries instead of two, and every library built with clang as well as GCC.
bash scripts/install-clang.sh
fuzz_build=${TRACEGEN_FUZZ_BUILD:-build-fuzz}
# -O1 with line tables only: what libFuzzer's documentation suggests, and about half the compile
# time of -O2 -g for the unit tests' 130 MB binary.
cmake -S . -B "$fuzz_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
  -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DTRACEGEN_FUZZ=ON -DTRACEGEN_BUILD_TESTS=ON -DTRACEGEN_BUILD_MPI=OFF
cmake --build "$fuzz_build" -j"$jobs" --target tracegen_unit_tests fuzz_tgt_reader fuzz_scalatrace_reader \
  fuzz_pipeline fuzz_extrapolate
stage "build (clang, sanitizers)"
# tests/sanitizers/lsan.supp: fontconfig's process-long caches (cairo's text in viz/).
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(pwd)/tests/sanitizers/lsan.supp UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$fuzz_build" -L unit --output-on-failure -j"$jobs"
stage "unit tests (sanitizers)"

# Fuzzing: each libFuzzer target for about 20 s with a fixed seed.
TRACEGEN_FUZZ_BUILD=$fuzz_build bash scripts/fuzz-ci.sh
stage fuzzing
