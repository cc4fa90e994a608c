#!/usr/bin/env bash
# Fuzzing as part of the tests: builds the libFuzzer targets (fuzz/, clang-14 with ASan and
# UBSan) and runs each for about 20 s from its seed corpus (bench/fuzz.sh). Fails if any target
# finds a crash, a sanitizer report, an input taking more than 1 s or more than 400 MB (bench/fuzz.sh).
# Installs clang-14 and its libFuzzer runtime when missing (Debian 12).
#   TRACEGEN_FUZZ_SECONDS  seconds per target (default 20)
#   TRACEGEN_FUZZ_SEED     libFuzzer seed (default 1: a rerun of CI explores the same inputs;
#                          exploration with new seeds is bench/fuzz.sh's job, run for hours)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-clang.sh
TRACEGEN_FUZZ_SEED=${TRACEGEN_FUZZ_SEED:-1} bash bench/fuzz.sh "${TRACEGEN_FUZZ_SECONDS:-20}"
