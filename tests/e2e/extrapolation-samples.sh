# Sourced by tests/e2e/extrapolate.sh and tests/e2e/scalefree_ncptl.sh: the sample applications
# the extrapolation tests record, their arguments and the rank counts they are recorded at, and
# the recording itself. The sourcing script sets `recorder` and `work`, and defines
# record_failed MESSAGE, called (after the run's output is shown) when a recording fails.

args_of() {
  case $1 in
    stencil2d) echo "10 16" ;;
    stencil_strong) echo "10 240" ;;
    ring) echo "5 64" ;;
    halo3d) echo "5 6" ;;
    fft) echo "5 48" ;;
    cg) echo "4 64" ;;
    rowcol) echo "10 1024" ;;
    wavefront) echo "3 4 16" ;;
    intsort) echo "3 16384" ;;
    pairwise) echo "3 64" ;;
  esac
}

inputs_of() {
  case $1 in
    stencil2d | stencil_strong | wavefront) echo "9 12 16" ;;
    ring) echo "4 6 8" ;;
    halo3d) echo "18 27 36" ;;
    fft | pairwise) echo "4 8 16" ;;
    rowcol | intsort) echo "8 16 32" ;;
  esac
}

# record NP OUTPUT PROGRAM ARGS...: a plain-text recording; RECORD_CLOCK (default wall) is the
# recorder's TRACEGEN_CLOCK. Status 1, after record_failed, when the run fails or writes nothing.
# With RECORDINGS_CACHE=DIR (ctest sets it for extrapolate and scalefree_ncptl, which record the
# same samples at the same scales), a recording is kept there under a key of the recorder's and
# the program's contents, the rank count, the arguments and the clock, and copied instead of
# recorded again: the tests compare calls and bytes, which do not change between runs.
record() {
  local np=$1 out=$2 prog=$3 key=""
  shift 3
  if [ -n "${RECORDINGS_CACHE:-}" ]; then
    key=$(cat "$recorder" "$prog" | sha256sum | cut -c1-16)-$(printf '%s\n' "$np" "${RECORD_CLOCK:-wall}" "$@" | sha256sum | cut -c1-16)
    if [ -s "$RECORDINGS_CACHE/$key.tgt" ]; then
      cp "$RECORDINGS_CACHE/$key.tgt" "$out"
      return 0
    fi
  fi
  if ! timeout 600 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$out" \
      TRACEGEN_COMPRESS=0 TRACEGEN_CLOCK="${RECORD_CLOCK:-wall}" "$prog" "$@" >"$work/stdout" 2>"$work/stderr"; then
    cat "$work/stdout" "$work/stderr"
    record_failed "$(basename "$prog") on $np ranks"
    return 1
  fi
  [ -s "$out" ] || { record_failed "no trace from $(basename "$prog") on $np ranks"; return 1; }
  if [ -n "$key" ]; then
    mkdir -p "$RECORDINGS_CACHE" && cp "$out" "$RECORDINGS_CACHE/$key.tmp.$$" && mv "$RECORDINGS_CACHE/$key.tmp.$$" "$RECORDINGS_CACHE/$key.tgt"
  fi
}
