# Sourced by bench/recorder-overhead.sh and bench/replay-overhead.sh: the arguments that make
# each sample application (samples/apps) run about a second at 2 ranks, much longer than its
# defaults, which finish in well under a second, most of it mpiexec's start-up.
sample_args() {
  case $1 in
    stencil2d) echo "30000 64" ;;
    wavefront) echo "1000 16 32" ;;
    sweep) echo "5000 8 24" ;;
    fft) echo "10000 64" ;;
    cg) echo "30000 256" ;;
    ring) echo "20000 1024" ;;
    ring_f) echo "20000" ;;
    apitour) echo "300" ;;
  esac
}
