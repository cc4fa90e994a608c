# Sourced by bench/recorder-overhead.sh, bench/replay-overhead.sh and bench/fidelity.sh: the
# arguments that make each sample application (samples/apps) run about 1-10 s at 2 ranks (the
# first argument is the iteration count), much longer than its defaults, which finish in well
# under a second, most of it mpiexec's start-up.
sample_args() {
  case $1 in
    stencil2d) echo "30000 64" ;;
    stencil_strong) echo "20000 240" ;;
    halo3d) echo "5000 16" ;;
    wavefront) echo "1000 16 32" ;;
    sweep) echo "5000 8 24" ;;
    fft) echo "10000 64" ;;
    cg) echo "30000 256" ;;
    ring) echo "20000 1024" ;;
    ring_f) echo "20000" ;;
    apitour) echo "300" ;;
    polling) echo "20000 256" ;;
    persist) echo "20000 256" ;;
    persist_f) echo "20000" ;;
    nbc) echo "20000 32" ;;
    topo) echo "20000 64" ;;
    rma) echo "5000 64" ;;
    rma_f) echo "5000" ;;
    mpiio) echo "500 256" ;;
  esac
}
