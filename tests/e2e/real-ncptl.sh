# Sourced by the end-to-end scripts: the real coNCePTuaL 1.5.1b compiler and run time
# (../shared/conceptual/setup.sh builds them), the judge of every .ncptl tracegen writes.
#
# Found through TRACEGEN_NCPTL_PREFIX, else the default prefixes
# ~/.cache/tracegen/conceptual-ompi (built with Open MPI, which runs more tasks than cores
# well), then ~/.cache/tracegen/conceptual (MPICH). A clone without ../shared has neither: the
# scripts then say so (real_ncptl_skip) and pass.
#
#   real_ncptl_find                 0 and REAL_NCPTL_PREFIX, REAL_NCPTL_MPICC, REAL_NCPTL_MPIEXEC set,
#                                   or 1 with REAL_NCPTL_MISSING saying why
#   real_ncptl_skip WHAT            prints "SKIP: WHAT: <why>"
#   real_ncptl_build FILE.ncptl OUT compiles with the real compiler (its errors on stdout)
#   real_ncptl_run OUT NP [COUNTLIB COUNT_JSON]
#                                   runs OUT on NP tasks in OUT's directory under a timeout
#                                   (REAL_NCPTL_TIMEOUT seconds, default 120), optionally with the
#                                   PMPI counting library preloaded, the program's arguments
#                                   from REAL_NCPTL_ARGS; 0 if it ran to completion
#                                   (every task's log has the run time's normal-exit trailer)
#   real_ncptl_countlib DIR         builds tests/support/mpi_count.c with the run time's MPI into
#                                   DIR/libncptl-count.so and prints its path
#   real_ncptl_compare_p2p INSPECT.json COUNT.json [proc-null]
#                                   every rank's point-to-point messages (sends, receives) and
#                                   bytes sent of a trace (`tracegen inspect --per-rank --format
#                                   json`) against a run's counts, its bytes received no more
#                                   than the trace posted and every byte sent received
#                                   (proc-null: fewer calls than the trace's allowed, for a trace
#                                   with MPI_PROC_NULL peers, which the program leaves out);
#                                   differences listed

real_ncptl_find() {
  REAL_NCPTL_MISSING=
  local p candidates=()
  if [ -n "${TRACEGEN_NCPTL_PREFIX:-}" ]; then
    candidates=("$TRACEGEN_NCPTL_PREFIX")
  else
    candidates=("${XDG_CACHE_HOME:-$HOME/.cache}/tracegen/conceptual-ompi" "${XDG_CACHE_HOME:-$HOME/.cache}/tracegen/conceptual")
  fi
  REAL_NCPTL_PREFIX=
  for p in "${candidates[@]}"; do
    if [ -x "$p/bin/ncptl-build" ] && [ -e "$p/bin/ncptl" ]; then REAL_NCPTL_PREFIX=$p; break; fi
  done
  if [ -z "$REAL_NCPTL_PREFIX" ]; then
    if [ -n "${TRACEGEN_NCPTL_PREFIX:-}" ]; then
      REAL_NCPTL_MISSING="TRACEGEN_NCPTL_PREFIX=$TRACEGEN_NCPTL_PREFIX has no bin/ncptl-build"
    else
      REAL_NCPTL_MISSING="the real coNCePTuaL compiler is not installed (${candidates[*]}; set TRACEGEN_NCPTL_PREFIX, or build it with ../shared/conceptual/setup.sh)"
    fi
    return 1
  fi
  # The MPI its run time was built with: MPICH's library or Open MPI's.
  if ldd "$REAL_NCPTL_PREFIX/lib/libncptl.so" 2>/dev/null | grep -q 'libmpich'; then
    REAL_NCPTL_MPICC=mpicc.mpich REAL_NCPTL_MPIEXEC=mpiexec.mpich
  else
    REAL_NCPTL_MPICC=mpicc.openmpi REAL_NCPTL_MPIEXEC=mpiexec.openmpi
  fi
  command -v "$REAL_NCPTL_MPICC" >/dev/null 2>&1 || REAL_NCPTL_MPICC=mpicc
  command -v "$REAL_NCPTL_MPIEXEC" >/dev/null 2>&1 || REAL_NCPTL_MPIEXEC=mpiexec
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  return 0
}

real_ncptl_skip() { echo "SKIP: $1: $REAL_NCPTL_MISSING"; }

real_ncptl_build() {
  NCPTL_MPICC=$REAL_NCPTL_MPICC "$REAL_NCPTL_PREFIX/bin/ncptl-build" "$1" "$2" 2>&1
}

real_ncptl_run() {
  local prog=$1 np=$2 countlib=${3:-} countout=${4:-} dir base extra=() rc i
  dir=$(dirname "$prog") base=$(basename "$prog")
  rm -f "$dir/$base"-*.log
  local oversubscribe=()
  [[ $REAL_NCPTL_MPIEXEC == *openmpi* ]] && oversubscribe=(--oversubscribe)
  # NCPTL_FAST_INIT=1: the run time skips its timer calibration (about 2 s a run; the tests
  # time nothing).
  extra=(env NCPTL_FAST_INIT=1)
  [ -n "$countlib" ] && extra+=(LD_PRELOAD="$countlib" TRACEGEN_COUNT_OUTPUT="$countout")
  local args=()
  read -r -a args <<<"${REAL_NCPTL_ARGS:-}"
  (cd "$dir" && timeout "${REAL_NCPTL_TIMEOUT:-120}" "$REAL_NCPTL_MPIEXEC" "${oversubscribe[@]}" -n "$np" \
    "${extra[@]}" "./$base" "${args[@]}" >"$base.out" 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    [ $rc -eq 124 ] && echo "  timed out after ${REAL_NCPTL_TIMEOUT:-120} s (a hang)"
    tail -5 "$dir/$base.out" | sed 's/^/  /'
    return 1
  fi
  for ((i = 0; i < np; i++)); do
    if ! grep -q "Program exited normally" "$dir/$base-$i.log" 2>/dev/null; then
      echo "  task $i's log $base-$i.log has no normal-exit trailer"
      return 1
    fi
  done
}

real_ncptl_countlib() {
  local here out
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
  out=$1/libncptl-count.so
  "$REAL_NCPTL_MPICC" -shared -fPIC -O2 -o "$out" "$here/mpi_count.c" -ldl >&2 || return 1
  echo "$out"
}

real_ncptl_compare_p2p() {
  python3 - "$1" "$2" "${3:-}" <<'PY'
import json, sys
want = {r["rank"]: r for r in json.load(open(sys.argv[1]))["per_rank"]}
allow_fewer = len(sys.argv) > 3 and sys.argv[3] == "proc-null"
got = {r["rank"]: r for r in json.load(open(sys.argv[2]))["per_rank"]}
SEND = ("MPI_Send", "MPI_Isend", "MPI_Ssend", "MPI_Issend", "MPI_Rsend", "MPI_Irsend", "MPI_Bsend", "MPI_Ibsend",
        "MPI_Sendrecv", "MPI_Sendrecv_replace")
RECV = ("MPI_Recv", "MPI_Irecv", "MPI_Sendrecv", "MPI_Sendrecv_replace")
bad = []
if sorted(want) != sorted(got):
    bad.append(f"ranks: trace {len(want)}, run {len(got)}")
for r in sorted(set(want) & set(got)):
    w, g = want[r], got[r]
    # Calls to or from MPI_PROC_NULL move nothing and the program leaves them out: no more
    # calls than the trace's (the bytes below must be exact, and every message sent received).
    for key, ops in (("sends", SEND), ("receives", RECV)):
        a = sum(w["ops"].get(o, 0) for o in ops)
        b = sum(g["ops"].get(o, 0) for o in ops)
        if b > a or (b < a and not allow_fewer):
            bad.append(f"rank {r} {key}: trace {a}, run {b}")
    if w["bytes_sent"] != g["bytes_sent"]:
        bad.append(f"rank {r} bytes_sent: trace {w['bytes_sent']}, run {g['bytes_sent']}")
    # A trace counts the bytes a receive posts room for; a coNCePTuaL RECEIVE names its message's
    # size (a larger one miscounts, §5.1 item 6): no more than the trace's, and every byte sent arrives.
    if g["bytes_received"] > w["bytes_received"]:
        bad.append(f"rank {r} bytes_received: trace {w['bytes_received']} posted, run {g['bytes_received']}")
messages = [sum(g["ops"].get(o, 0) for o in ops for g in got.values()) for ops in (SEND, RECV)]
if messages[0] != messages[1]:
    bad.append(f"the run sent {messages[0]} messages and received {messages[1]}")
sent = sum(g["bytes_sent"] for g in got.values())
received = sum(g["bytes_received"] for g in got.values())
if sent != received:
    bad.append(f"the run sent {sent} bytes and received {received}")
for b in bad[:20]:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
}
