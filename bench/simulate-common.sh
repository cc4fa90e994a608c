# Sourced by bench/simulate-validate.sh and bench/simulate-scale.sh: the four samples of the SMPI
# runs (2-D stencil, 3-D halo, CG-like rowcol, LU-like wavefront), their arguments, and
# make_bench APP, which builds the sample with mpicc, records it with Open MPI at its three input
# scales (tests/e2e/extrapolation-samples.sh; CPU-clock compute times) and extrapolates the
# recordings without --ranks to $work/bench-APP.c. The sourcing script sets src, tracegen,
# recorder and work.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
source "$src/tests/e2e/extrapolation-samples.sh"
record_failed() { echo "FAIL: $1"; }
# Larger problems than the extrapolation tests', so that computation is a visible part of a run.
sim_args() {
  case $1 in
    stencil2d) echo "20 128" ;;
    halo3d) echo "20 16" ;;
    rowcol) echo "10 1024" ;;
    wavefront) echo "3 4 16" ;;
    *) args_of "$1" ;;
  esac
}
make_bench() {
  local app=$1 np
  local -a args inputs=()
  read -r -a args <<<"$(sim_args "$app")"
  mpicc -std=c11 -O2 -o "$work/$app" "$src/samples/apps/$app.c" -lm || { echo "FAIL: build $app"; return 1; }
  for np in $(inputs_of "$app"); do
    RECORD_CLOCK=cpu record "$np" "$work/$app-$np.tgt" "$work/$app" "${args[@]}" || return 1
    inputs+=("$work/$app-$np.tgt")
  done
  if ! "$tracegen" extrapolate "${inputs[@]}" -o "$work/bench-$app.c" >"$work/extrapolate.log" 2>&1; then
    cat "$work/extrapolate.log"
    echo "FAIL: extrapolate $app"
    return 1
  fi
}
