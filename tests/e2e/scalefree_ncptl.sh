#!/usr/bin/env bash
# End-to-end test of scale-free coNCePTuaL benchmarks (docs/ncptl-backend.md, "Scale-free
# programs"): per sample application, three recordings at small rank counts become one .ncptl
# (`tracegen extrapolate T1 T2 T3 -o bench.ncptl`, no --ranks) that runs on any task count its
# formulas fit. The one program is checked by `ncptl-check --generated --tasks A,B` at two target
# counts (grammar, static rules, generator checklist, and the per-task simulation with that many
# tasks: every ASSERT holds, every asynchronous operation awaited, every UNSUSPECTING send
# matched by a RECEIVE of its size, no blocking cycle; no warning either). At the first target
# the simulation is the run: its messages and bytes per task and the collectives each takes part
# in (`--traffic`) must be those of a real recording there (`tracegen inspect --per-rank`: sends,
# receives and their bytes, and collective calls, on every rank; the bytes of collectives are
# not compared, the simulation does not count them). A copy of the stencil2d program with every message doubled must fail that
# comparison, so that it is known to look.
#
#   scalefree_ncptl.sh TRACEGEN NCPTL_CHECK RECORDER APPS_DIR NPB_DIR [APP...]
#
#   stencil2d       inputs 9, 12, 16     args 10 16     targets 24, 64
#   stencil_strong  inputs 9, 12, 16     args 10 240    targets 20, 36; 14 refused by its ASSERT
#   ring            inputs 4, 6, 8       args 5 64      targets 16, 32
#   halo3d          inputs 18, 27, 36    args 5 6       targets 48, 64
#   fft             inputs 4, 8, 16      args 5 48      targets 48, 64
#   wavefront       inputs 9, 12, 16     args 3 4 16    refused: its wildcard receives name no sender
#   rowcol          inputs 8, 16, 32     args 10 1024   refused: collectives on row and column communicators
#   stencil2d       inputs 4, 8          args 10 16     targets 16, 36 (classes no input shows composed)
#   cg_like         inputs 4, 8, 16      (NPB_DIR: one binary per count)  targets 32, 64 (peers by
#                   relation: the row's rank XOR 2^k, the transpose partner; power-of-two templates)
#   bt_like         inputs 4, 9, 16      (NPB_DIR)  targets 25, 36 (square templates; counts by block
#                   distribution, two task sets per count split at 40 MOD py)
#   is_like         inputs 4, 8, 16      (NPB_DIR)  targets 32, 64 (MPI_Alltoallv counts that follow
#                   the keys: a MULTICAST of their even split, 65536/P^2 ints per pair)
#
# With the real coNCePTuaL 1.5.1b compiler (tests/e2e/real-ncptl.sh finds it; without it the
# script says SKIP and checks the rest), every scale-free program is also compiled by it and run
# to completion at two small task counts (real_counts_of below), and stencil2d recorded at 4 ranks
# for 50 steps (a halo exchange: receives posted in one loop over directions, sends in another,
# one MPI_Waitall) gives a .ncptl that ncptl-check accepts, that runs to completion at 4 tasks and
# whose point-to-point calls and bytes, counted through PMPI, are the recording's on every rank.
set -uo pipefail
tracegen=$(realpath "$1") check=$(realpath "$2") recorder=$(realpath "$3") apps=$4 npb=$5
shift 5
selected=("$@")
[ ${#selected[@]} -eq 0 ] && selected=(stencil2d stencil_strong ring halo3d fft wavefront rowcol cg_like bt_like is_like)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
failures=0 passed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failures=$((failures + 1)); echo "FAIL: $*"; }

# The samples' arguments and input scales, and record (tests/e2e/extrapolation-samples.sh), with
# CPU time: each rank's compute demand, not the time it waited for a core (docs/recording.md).
source "$(dirname "$0")/extrapolation-samples.sh"
RECORD_CLOCK=cpu
record_failed() { fail "$1"; }
# What a scale-free coNCePTuaL program cannot say yet: the words tracegen refuses it with.
refusal_of() {
  case $1 in
    wavefront) echo "MPI_ANY_SOURCE: a scale-free coNCePTuaL program cannot name the sender" ;;
    rowcol) echo "a collective on another communicator than MPI_COMM_WORLD in a scale-free coNCePTuaL program" ;;
  esac
}
targets_of() {
  case $1 in
    stencil2d) echo "24 64" ;;
    stencil_strong) echo "20 36" ;;
    ring) echo "16 32" ;;
    halo3d) echo "48 64" ;;
    fft) echo "48 64" ;;
  esac
}

# The real compiler, if installed: each scale-free program compiled and run at two task counts
# its formulas fit (small, so that the runs stay short on two cores).
source "$(dirname "$0")/real-ncptl.sh"
real=0
if real_ncptl_find; then
  real=1
  echo "real coNCePTuaL compiler: $REAL_NCPTL_PREFIX ($REAL_NCPTL_MPIEXEC)"
  export REAL_NCPTL_ARGS="--compute-scale=0"
else
  real_ncptl_skip "scalefree_ncptl: compiling and running the programs with the real compiler"
fi
real_counts_of() {
  case $1 in
    stencil2d | stencil_strong | ring | composed) echo "4 6" ;;
    halo3d) echo "8 12" ;;
    fft) echo "4 8" ;;
  esac
}
# real_judge NAME PROGRAM: compiled by the real compiler and run to completion at real_counts_of NAME.
real_judge() {
  local name=$1 program=$2 log np
  [ $real -eq 1 ] || return 0
  mkdir -p "$work/real-$name"
  if ! log=$(real_ncptl_build "$program" "$work/real-$name/bench"); then
    fail "$name: the real compiler rejects the program:"; echo "$log" | head -20; return
  fi
  for np in $(real_counts_of "$name"); do
    if real_ncptl_run "$work/real-$name/bench" "$np"; then
      ok "$name: compiled by the real compiler, ran to completion on $np tasks"
    else
      fail "$name: the real compiler's program does not run to completion on $np tasks"
    fi
  done
}

# The simulation's traffic per task against a recording's per-rank point-to-point calls and bytes.
compare_traffic() {  # compare_traffic TRAFFIC.json INSPECT.json
  python3 - "$1" "$2" <<'PY'
import json, sys
got = json.loads(open(sys.argv[1]).readline())["per_task"]
want = json.load(open(sys.argv[2]))["per_rank"]
SEND = ("MPI_Send", "MPI_Isend", "MPI_Ssend", "MPI_Issend", "MPI_Rsend", "MPI_Irsend", "MPI_Bsend", "MPI_Ibsend",
        "MPI_Sendrecv", "MPI_Sendrecv_replace")
RECV = ("MPI_Recv", "MPI_Irecv", "MPI_Sendrecv", "MPI_Sendrecv_replace")
# The collectives of the samples, and MPI_Init, which the program replays as a SYNCHRONIZE.
COLL = ("MPI_Init", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Alltoall", "MPI_Alltoallv",
        "MPI_Allgather", "MPI_Gather", "MPI_Scatter")
bad = []
if len(got) != len(want):
    bad.append(f"{len(got)} tasks simulated, {len(want)} ranks recorded")
for g, w in zip(got, want):
    r = w["rank"]
    expect = {"sent": sum(w["ops"].get(o, 0) for o in SEND), "received": sum(w["ops"].get(o, 0) for o in RECV),
              "sent_bytes": w["bytes_sent"], "received_bytes": w["bytes_received"],
              "collectives": sum(w["ops"].get(o, 0) for o in COLL)}
    for k, v in expect.items():
        if g[k] != v:
            bad.append(f"task {r} {k}: simulated {g[k]}, recorded {v}")
for b in bad[:20]:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
}

for app in "${selected[@]}"; do
  [[ "$app" == *_like ]] && continue  # below: one binary per process count
  read -r -a a <<<"$(args_of "$app")"
  sf=$work/$app.ncptl
  # Compute times are measured on a machine running up to 64 ranks on a few cores: a time that
  # no model fits at the template scales is noise of the recording, not of the backend, so the
  # inputs are recorded again (at most three times in all).
  for attempt in 1 2 3; do
    ins=()
    for np in $(inputs_of "$app"); do
      # Again means a new recording, not the cached one (extrapolation-samples.sh).
      if [ "$attempt" -eq 1 ]; then record "$np" "$work/$app-$np.tgt" "$apps/$app" "${a[@]}" || continue 3
      else RECORDINGS_CACHE="" record "$np" "$work/$app-$np.tgt" "$apps/$app" "${a[@]}" || continue 3; fi
      ins+=("$work/$app-$np.tgt")
    done
    "$tracegen" extrapolate "${ins[@]}" -o "$sf" >"$work/out" 2>&1
    rc=$?
    grep -q "compute time: no model reproduces its values" "$work/out" || break
    echo "note: $app: a compute time no model fits (attempt $attempt), recording again"
  done
  refusal=$(refusal_of "$app")
  if [ -n "$refusal" ]; then
    if [ $rc -eq 2 ] && grep -q "$refusal" "$work/out"; then
      ok "$app: refused with status 2 ($refusal)"
    else
      fail "$app: expected status 2 and \"$refusal\", got status $rc"
      cat "$work/out"
    fi
    continue
  fi
  if [ $rc -ne 0 ] || [ ! -s "$sf" ]; then
    fail "$app: tracegen extrapolate -o $app.ncptl: status $rc"
    cat "$work/out"
    continue
  fi
  ok "$app: scale-free coNCePTuaL program written"
  if grep -q "num_tasks = " "$sf"; then fail "$app: the program fixes its task count"; fi
  real_judge "$app" "$sf"
  read -r -a targets <<<"$(targets_of "$app")"
  counts=$(IFS=,; echo "${targets[*]}")
  "$check" --generated --verbose --tasks "$counts" --traffic "$sf" >"$work/traffic" 2>"$work/log"
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "$app: ncptl-check --tasks $counts rejects the program:"; head -30 "$work/log"
  elif grep -q ": warning:" "$work/log"; then
    fail "$app: ncptl-check warns about the program:"; head -30 "$work/log"
  else
    simulated=1
    for np in "${targets[@]}"; do
      grep -q "per-task simulation done with $np tasks" "$work/log" || simulated=0
    done
    if [ $simulated -eq 1 ]; then ok "$app: accepted and simulated at $counts tasks"
    else fail "$app: not simulated at every count:"; cat "$work/log"; fi
  fi
  # At the first target the simulation stands for the run: traffic = a recording's.
  np=${targets[0]}
  if record "$np" "$work/$app-real$np.tgt" "$apps/$app" "${a[@]}" &&
      "$tracegen" inspect --per-rank --format json "$work/$app-real$np.tgt" >"$work/$app-real$np.json"; then
    head -1 "$work/traffic" >"$work/$app-traffic$np.json"
    if compare_traffic "$work/$app-traffic$np.json" "$work/$app-real$np.json" >"$work/cmp" 2>&1; then
      ok "$app: simulated at $np tasks = recorded (messages, bytes and collectives on every rank)"
    else
      fail "$app: simulated traffic at $np tasks differs from the recording:"; cat "$work/cmp"
    fi
  fi
done

# The comparison is no rubber stamp: the stencil2d program with every message twice as large
# (sends and receives alike, so the checker still accepts it) must differ from the recording.
if [ -s "$work/stencil2d.ncptl" ] && [ -s "$work/stencil2d-real24.json" ]; then
  sed 's|\*msg_scale/100 BYTE MESSAGE|*msg_scale/50 BYTE MESSAGE|g' "$work/stencil2d.ncptl" >"$work/doubled.ncptl"
  if cmp -s "$work/stencil2d.ncptl" "$work/doubled.ncptl"; then
    fail "stencil2d: no message size to double"
  elif ! "$check" --generated --tasks 24 --traffic "$work/doubled.ncptl" >"$work/doubled.json" 2>"$work/log"; then
    fail "stencil2d with doubled messages: rejected by ncptl-check:"; head -10 "$work/log"
  elif compare_traffic "$work/doubled.json" "$work/stencil2d-real24.json" >"$work/cmp" 2>&1; then
    fail "stencil2d with doubled messages: the traffic comparison does not notice"
  elif grep -q "sent_bytes: simulated" "$work/cmp"; then
    ok "stencil2d with doubled messages: the traffic comparison names the bytes that differ"
  else
    fail "stencil2d with doubled messages: the comparison fails for another reason:"; cat "$work/cmp"
  fi
fi

# Classes no input shows (docs/extrapolation.md, 3b): stencil2d recorded at 2x2 and 2x4 only
# gives a program for 4x4 and 6x6 whose interior ranks follow from neighbour predicates; at 16
# tasks its simulated traffic is a recording's.
if [[ " ${selected[*]} " == *" stencil2d "* ]]; then
  read -r -a a <<<"$(args_of stencil2d)"
  if record 4 "$work/c4.tgt" "$apps/stencil2d" "${a[@]}" && record 8 "$work/c8.tgt" "$apps/stencil2d" "${a[@]}" &&
      record 16 "$work/c16.tgt" "$apps/stencil2d" "${a[@]}"; then
    if ! "$tracegen" extrapolate "$work/c4.tgt" "$work/c8.tgt" -o "$work/composed.ncptl" >"$work/out" 2>&1; then
      fail "stencil2d from 4 and 8 ranks: no scale-free program:"; cat "$work/out"
    elif ! "$check" --generated --tasks 16,36 --traffic "$work/composed.ncptl" >"$work/composed.json" 2>"$work/log"; then
      fail "stencil2d from 4 and 8 ranks: ncptl-check --tasks 16,36 rejects the program:"; head -20 "$work/log"
    elif "$tracegen" inspect --per-rank --format json "$work/c16.tgt" >"$work/c16.json" &&
        head -1 "$work/composed.json" >"$work/composed16.json" &&
        compare_traffic "$work/composed16.json" "$work/c16.json" >"$work/cmp" 2>&1; then
      ok "stencil2d from 4 and 8 ranks (classes no input shows): simulated at 16 tasks = recorded"
    else
      fail "stencil2d from 4 and 8 ranks: simulated traffic at 16 tasks differs from the recording:"; cat "$work/cmp"
    fi
    [ -s "$work/composed.ncptl" ] && real_judge composed "$work/composed.ncptl"
  fi
fi

# A task count the strong-scaling stencil's formulas do not fit (240/py with py = 7) is refused by
# the program's own ASSERT, which the simulation evaluates.
if [ -s "$work/stencil_strong.ncptl" ]; then
  "$check" --generated --tasks 14 "$work/stencil_strong.ncptl" >"$work/out" 2>&1
  rc=$?
  if [ $rc -eq 2 ] && grep -q "ASSERT THAT \"this benchmark needs py dividing 240\" fails with num_tasks = 14" "$work/out"; then
    ok "stencil_strong: 14 tasks refused by the program's ASSERT (py dividing 240)"
  else
    fail "stencil_strong at 14 tasks: status $rc"
    cat "$work/out"
  fi
fi

# A halo exchange at one scale (issue 29): stencil2d at 4 ranks, 50 steps, posts its receives in
# one loop over directions and its sends in another, then waits for all. Its .ncptl must keep the
# receives pending across the directions (an AWAIT in the receive loop waits for messages no task
# has sent yet): ncptl-check's simulation accepts it, and the real run time runs it to the end
# with the recording's point-to-point calls and bytes on every rank.
if [[ " ${selected[*]} " == *" stencil2d "* ]] && record 4 "$work/halo4.tgt" "$apps/stencil2d" 50 16; then
  if ! "$tracegen" generate "$work/halo4.tgt" -o "$work/halo4.ncptl" --emit ncptl >"$work/out" 2>&1; then
    fail "stencil2d at 4 ranks: no .ncptl:"; cat "$work/out"
  elif ! "$check" --generated "$work/halo4.ncptl" >"$work/log" 2>&1; then
    fail "stencil2d at 4 ranks: ncptl-check rejects the program:"; head -20 "$work/log"
  else
    ok "stencil2d at 4 ranks, 50 steps: accepted by ncptl-check (no AWAIT before the sends it waits for)"
    if [ $real -eq 1 ]; then
      mkdir -p "$work/real-halo4"
      countlib=$(real_ncptl_countlib "$work/real-halo4")
      if ! log=$(real_ncptl_build "$work/halo4.ncptl" "$work/real-halo4/bench"); then
        fail "stencil2d at 4 ranks: the real compiler rejects the program:"; echo "$log" | head -20
      elif ! real_ncptl_run "$work/real-halo4/bench" 4 "$countlib" "$work/real-halo4/count.json"; then
        fail "stencil2d at 4 ranks: the real compiler's program does not run to completion on 4 tasks"
      elif "$tracegen" inspect --per-rank --format json "$work/halo4.tgt" >"$work/halo4.json" &&
          real_ncptl_compare_p2p "$work/halo4.json" "$work/real-halo4/count.json"; then
        ok "stencil2d at 4 ranks: ran to completion with the real run time, point-to-point calls and bytes = the recording's"
      else
        fail "stencil2d at 4 ranks: the run's point-to-point traffic differs from the recording's"
      fi
    fi
  fi
fi

# npb_record SAMPLE NP: records samples/apps/npb-like's SAMPLE (its binary for NP ranks) at NP
# ranks into $work/<SAMPLE without _like>-NP.tgt, uncompressed.
npb_record() {
  local out=$work/${1%_like}-$2.tgt
  timeout 300 mpiexec --oversubscribe -n "$2" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$out" \
    TRACEGEN_COMPRESS=0 "$npb/$1.$2" >"$work/stdout" 2>&1 && [ -s "$out" ] && return 0
  cat "$work/stdout"
  fail "$1: recording at $2 ranks"
  return 1
}

# NPB-like CG (samples/apps/npb-like/cg_like.c, compiled per process count): its row sums pair
# rank with rank XOR 2^k over log2(px) steps and its transpose partner is (h*y + x mod h, x div h),
# peers no grid step gives (gen/GridRelation.h); its templates are the grids of powers of two.
# The one program, from 4, 8 and 16 ranks, is simulated by ncptl-check at 32 (8x4) and 64 (8x8)
# tasks, its traffic at 32 the recording's; refused by its ASSERT at 24 (6x4: px no power of
# two); and the real compiler's program, run on 32 tasks, makes the recording's point-to-point
# calls and bytes on every rank.
if [[ " ${selected[*]} " == *" cg_like "* ]]; then
  if npb_record cg_like 4 && npb_record cg_like 8 && npb_record cg_like 16 && npb_record cg_like 32 &&
      "$tracegen" inspect --per-rank --format json "$work/cg-32.tgt" >"$work/cg-32.json"; then
    if ! "$tracegen" extrapolate "$work/cg-4.tgt" "$work/cg-8.tgt" "$work/cg-16.tgt" -o "$work/cg.ncptl" >"$work/out" 2>&1; then
      fail "cg_like: no scale-free coNCePTuaL program:"; cat "$work/out"
    elif ! grep -q "XOR (1 << " "$work/cg.ncptl"; then
      fail "cg_like: the program has no XOR partner"
    elif ! "$check" --generated --tasks 32,64 --traffic "$work/cg.ncptl" >"$work/cg.traffic" 2>"$work/log"; then
      fail "cg_like: ncptl-check --tasks 32,64 rejects the program:"; head -20 "$work/log"
    else
      head -1 "$work/cg.traffic" >"$work/cg-traffic32.json"
      if compare_traffic "$work/cg-traffic32.json" "$work/cg-32.json" >"$work/cmp" 2>&1; then
        ok "cg_like: accepted and simulated at 32 and 64 tasks, at 32 = recorded (messages, bytes and collectives on every rank)"
      else
        fail "cg_like: simulated traffic at 32 tasks differs from the recording:"; cat "$work/cmp"
      fi
      "$check" --generated --tasks 24 "$work/cg.ncptl" >"$work/out" 2>&1
      rc=$?
      if [ $rc -eq 2 ] && grep -q "this benchmark needs px a power of two\" fails with num_tasks = 24" "$work/out"; then
        ok "cg_like: 24 tasks refused by the program's ASSERT (px a power of two)"
      else
        fail "cg_like at 24 tasks: status $rc"; cat "$work/out"
      fi
      if [ $real -eq 1 ]; then
        mkdir -p "$work/real-cg"
        countlib=$(real_ncptl_countlib "$work/real-cg")
        if ! log=$(real_ncptl_build "$work/cg.ncptl" "$work/real-cg/bench"); then
          fail "cg_like: the real compiler rejects the program:"; echo "$log" | head -20
        elif ! real_ncptl_run "$work/real-cg/bench" 32 "$countlib" "$work/real-cg/count.json"; then
          fail "cg_like: the real compiler's program does not run to completion on 32 tasks"
        elif real_ncptl_compare_p2p "$work/cg-32.json" "$work/real-cg/count.json"; then
          ok "cg_like: compiled by the real compiler, ran on 32 tasks, point-to-point calls and bytes = the recording's"
        else
          fail "cg_like: the real run's point-to-point traffic at 32 tasks differs from the recording's"
        fi
      fi
    fi
  fi
fi

# NPB-like BT (samples/apps/npb-like/bt_like.c, one binary per square count): every input is
# square, so its templates are the square grids; its face counts follow a block distribution of
# 40 points, 40*block(40, py, y), spelled as two task sets split at y = 40 MOD py. The one
# program, from 4, 9 and 16 ranks, is simulated by ncptl-check at 25 and 36 tasks, its traffic
# at 25 the recording's; refused by its ASSERT at 24 (4x6: no square); and the real compiler's
# program, run on 9 tasks (3x3: split at 40 MOD 3 = 1, as at 25; a third of 25 tasks' 17 s on two
# cores), makes the recording's point-to-point calls and bytes on every rank.
if [[ " ${selected[*]} " == *" bt_like "* ]]; then
  if npb_record bt_like 4 && npb_record bt_like 9 && npb_record bt_like 16 && npb_record bt_like 25 &&
      "$tracegen" inspect --per-rank --format json "$work/bt-25.tgt" >"$work/bt-25.json"; then
    if ! "$tracegen" extrapolate "$work/bt-4.tgt" "$work/bt-9.tgt" "$work/bt-16.tgt" -o "$work/bt.ncptl" >"$work/out" 2>&1; then
      fail "bt_like: no scale-free coNCePTuaL program:"; cat "$work/out"
    elif ! grep -q "t/px < 40 MOD py" "$work/bt.ncptl"; then
      fail "bt_like: the program does not split the faces' tasks at 40 MOD py"
    elif ! "$check" --generated --tasks 25,36 --traffic "$work/bt.ncptl" >"$work/bt.traffic" 2>"$work/log"; then
      fail "bt_like: ncptl-check --tasks 25,36 rejects the program:"; head -20 "$work/log"
    else
      head -1 "$work/bt.traffic" >"$work/bt-traffic25.json"
      if compare_traffic "$work/bt-traffic25.json" "$work/bt-25.json" >"$work/cmp" 2>&1; then
        ok "bt_like: accepted and simulated at 25 and 36 tasks, at 25 = recorded (messages, bytes and collectives on every rank)"
      else
        fail "bt_like: simulated traffic at 25 tasks differs from the recording:"; cat "$work/cmp"
      fi
      "$check" --generated --tasks 24 "$work/bt.ncptl" >"$work/out" 2>&1
      rc=$?
      if [ $rc -eq 2 ] && grep -q "this benchmark needs a square grid (px = py: a square task count), as the traces'\" fails with num_tasks = 24" "$work/out"; then
        ok "bt_like: 24 tasks refused by the program's ASSERT (a square grid)"
      else
        fail "bt_like at 24 tasks: status $rc"; cat "$work/out"
      fi
      if [ $real -eq 1 ]; then
        mkdir -p "$work/real-bt"
        countlib=$(real_ncptl_countlib "$work/real-bt")
        if ! log=$(real_ncptl_build "$work/bt.ncptl" "$work/real-bt/bench"); then
          fail "bt_like: the real compiler rejects the program:"; echo "$log" | head -20
        elif ! real_ncptl_run "$work/real-bt/bench" 9 "$countlib" "$work/real-bt/count.json"; then
          fail "bt_like: the real compiler's program does not run to completion on 9 tasks"
        elif "$tracegen" inspect --per-rank --format json "$work/bt-9.tgt" >"$work/bt-9.json" &&
            real_ncptl_compare_p2p "$work/bt-9.json" "$work/real-bt/count.json"; then
          ok "bt_like: compiled by the real compiler, ran on 9 tasks, point-to-point calls and bytes = the recording's"
        else
          fail "bt_like: the real run's point-to-point traffic at 9 tasks differs from the recording's"
        fi
      fi
    fi
  fi
fi

# NPB-like IS (samples/apps/npb-like/is_like.c, one binary per count): its MPI_Alltoallv's counts
# follow the keys, so the program multicasts their even split, the mean total per rank 65536/P
# over the ranks (extrap/ScaleFree.cpp, evenVectors). The one program, from 4, 8 and 16 ranks, is
# simulated by ncptl-check at 32 and 64 tasks, its calls and collectives at 32 the recording's (the
# simulation counts no collective's bytes); refused by its ASSERT at 24 (24^2 does not divide
# 65536); and the real compiler's program runs to completion on 4 and 8 tasks.
if [[ " ${selected[*]} " == *" is_like "* ]]; then
  if npb_record is_like 4 && npb_record is_like 8 && npb_record is_like 16 && npb_record is_like 32 &&
      "$tracegen" inspect --per-rank --format json "$work/is-32.tgt" >"$work/is-32.json"; then
    if ! "$tracegen" extrapolate "$work/is-4.tgt" "$work/is-8.tgt" "$work/is-16.tgt" -o "$work/is.ncptl" >"$work/out" 2>&1; then
      fail "is_like: no scale-free coNCePTuaL program:"; cat "$work/out"
    elif ! grep -q "MULTICAST A 4\*(65536/(num_tasks\*num_tasks))\*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS" "$work/is.ncptl"; then
      fail "is_like: the program does not multicast 65536/P^2 ints per pair"; grep MULTICAST "$work/is.ncptl"
    elif ! "$check" --generated --tasks 32,64 --traffic "$work/is.ncptl" >"$work/is.traffic" 2>"$work/log"; then
      fail "is_like: ncptl-check --tasks 32,64 rejects the program:"; head -20 "$work/log"
    else
      head -1 "$work/is.traffic" >"$work/is-traffic32.json"
      if compare_traffic "$work/is-traffic32.json" "$work/is-32.json" >"$work/cmp" 2>&1; then
        ok "is_like: accepted and simulated at 32 and 64 tasks, at 32 = recorded (calls and collectives on every rank)"
      else
        fail "is_like: simulated traffic at 32 tasks differs from the recording:"; cat "$work/cmp"
      fi
      "$check" --generated --tasks 24 "$work/is.ncptl" >"$work/out" 2>&1
      rc=$?
      if [ $rc -eq 2 ] && grep -q "this benchmark needs num_tasks\*num_tasks dividing 65536\" fails with num_tasks = 24" "$work/out"; then
        ok "is_like: 24 tasks refused by the program's ASSERT (num_tasks^2 dividing 65536)"
      else
        fail "is_like at 24 tasks: status $rc"; cat "$work/out"
      fi
      if [ $real -eq 1 ]; then
        mkdir -p "$work/real-is"
        if ! log=$(real_ncptl_build "$work/is.ncptl" "$work/real-is/bench"); then
          fail "is_like: the real compiler rejects the program:"; echo "$log" | head -20
        else
          for np in 4 8; do
            if real_ncptl_run "$work/real-is/bench" "$np"; then
              ok "is_like: compiled by the real compiler, ran to completion on $np tasks"
            else
              fail "is_like: the real compiler's program does not run to completion on $np tasks"
            fi
          done
        fi
      fi
    fi
  fi
fi

echo "scalefree_ncptl: $passed passed, $failures failed"
[ $failures -eq 0 ]
