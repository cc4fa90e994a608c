#!/usr/bin/env bash
# Builds tracegen (libraries, tools, recorder, samples, tests, benchmarks: everything `cmake
# --build` builds) in every CMake build type with GCC and with clang-14, warnings as errors, and
# prints one line per build: what a user who picks another build type or compiler would meet.
# Builds only; the tests run in scripts/test.sh.
#
#   scripts/build-matrix.sh [DIR]     build directories under DIR (default build-matrix)
#   COMPILERS="gcc" TYPES="Debug MinSizeRel" scripts/build-matrix.sh
#
# Exit status 1 if any build fails (its last 30 lines of output are shown).
set -uo pipefail
cd "$(dirname "$0")/.."
root=${1:-build-matrix}
compilers=${COMPILERS:-gcc clang}
types=${TYPES:-Debug Release RelWithDebInfo MinSizeRel}
jobs=$(nproc 2>/dev/null || echo 2)
case " $compilers " in *" clang "*) bash scripts/install-clang.sh ;; esac
mkdir -p "$root"
status=0
for compiler in $compilers; do
  case $compiler in
    gcc) cc=gcc cxx=g++ ;;
    clang) cc=clang-14 cxx=clang++-14 ;;
    *) echo "build-matrix: unknown compiler '$compiler' (gcc or clang)" >&2; exit 2 ;;
  esac
  for type in $types; do
    dir=$root/$compiler-$type
    start=$SECONDS
    if cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DCMAKE_C_COMPILER="$cc" \
         -DCMAKE_CXX_COMPILER="$cxx" >"$dir.log" 2>&1 &&
       cmake --build "$dir" -j"$jobs" >>"$dir.log" 2>&1; then
      echo "build-matrix: $compiler $type: ok ($((SECONDS - start)) s)"
    else
      echo "build-matrix: $compiler $type: FAILED ($((SECONDS - start)) s; $dir.log):"
      tail -n 30 "$dir.log" | sed 's/^/  /'
      status=1
    fi
  done
done
exit $status
