#!/usr/bin/env bash
# Installs clang-14 and its libFuzzer and sanitizer runtimes when missing (Debian 12): the
# sanitizer and fuzzing build of scripts/test.sh and scripts/fuzz-ci.sh.
set -euo pipefail
need=()
command -v clang++-14 >/dev/null 2>&1 || need+=(clang-14)
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || need+=(libclang-rt-14-dev)
[ ${#need[@]} -gt 0 ] || exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-clang: installing ${need[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
