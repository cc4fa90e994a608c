#!/usr/bin/env bash
# Call sites without a stack walk (docs/recording.md, "Call sites without a stack walk"): the
# recorder's remembered chains must give every call the site a full stack walk gives it.
#
#   record_sites.sh RECORDER APPS_DIR
#
# Records samples whose traces do not depend on timing (C and Fortran, several call depths:
# sweep calls its collectives from three functions) on 4 ranks, once with TRACEGEN_UNWIND=walk
# (every call walks the stack) and once by default, and requires the same trace apart from the
# times: the same events, sites, parameters and site table.
set -uo pipefail
recorder=$1 apps=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1 TRACEGEN_COMPRESS=0
fail=0
for spec in "stencil2d 40 32" "sweep 3 4 16" "cg 12 128" "ring_f 10" "topo 6 64" "halo3d"; do
  read -r app args <<<"$spec"
  for unwind in walk libunwind; do
    # shellcheck disable=SC2086
    if ! timeout 300 mpiexec --oversubscribe -n 4 env LD_PRELOAD="$recorder" TRACEGEN_UNWIND=$unwind \
      TRACEGEN_OUTPUT="$work/$app.$unwind.tgt" "$apps/$app" $args >"$work/out" 2>&1; then
      echo "FAIL: $app with TRACEGEN_UNWIND=$unwind"
      cat "$work/out"
      fail=1
      continue 2
    fi
    # Times (and the footprint) differ from run to run, and so do the timing sub-groups and with them the header's
    # site table (the sites that several time lines name): both are left out.
    grep -v -e '^ *time ' -e '^site [0-9]' -e '^footprint ' "$work/$app.$unwind.tgt" >"$work/$app.$unwind.notime"
  done
  if cmp -s "$work/$app.walk.notime" "$work/$app.libunwind.notime"; then
    echo "ok: $app: $(grep -c '^event' "$work/$app.walk.notime") events, the same sites walked and remembered"
  else
    echo "FAIL: $app: the trace recorded with remembered call sites differs from the walked one"
    diff "$work/$app.walk.notime" "$work/$app.libunwind.notime" | head -20
    fail=1
  fi
done
[ $fail -eq 0 ] && echo PASS
exit $fail
