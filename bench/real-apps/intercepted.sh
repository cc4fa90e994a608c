#!/usr/bin/env bash
# Which MPI functions an application calls that the recorder does not intercept.
#
#   bench/real-apps/intercepted.sh RECORDER BINARY...
#
# For each BINARY (an executable or a shared library), the MPI functions it and the libraries it
# loads import (nm -D: C's MPI_* and Fortran's mpi_*_), apart from the MPI library's own, are
# looked up among those RECORDER (libtracegen-record.so) defines. Local functions (sizes, ranks,
# datatypes, attributes, clocks, ...: common.sh, local_mpi_calls) need no interception. Prints,
# per binary, how many MPI functions it imports, how many the recorder intercepts, and the
# others by name; exits 1 if any binary imports a communicating function the recorder misses.
# A BINARY that does not exist is skipped (said so); if none exists, the exit status is 77.
#
# e.g. bench/real-apps/intercepted.sh build/record/libtracegen-record.so /usr/bin/lmp /usr/bin/hpcc \
#        /usr/lib/x86_64-linux-gnu/libmeep.so.30
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
recorder=$1
shift
defined=$(nm -D --defined-only "$recorder" | awk '{ print $NF }' | grep -E '^(MPI_|mpi_)' | sort -u)
status=0 found=0
for bin in "$@"; do
  [ -e "$bin" ] || { echo "$bin: not installed, skipped"; continue; }
  found=$((found + 1))
  libs=$(ldd "$bin" | awk '/=>/ { print $3 }' | grep -v -E '/lib(mpi|mpi_cxx|mpi_mpifh|mpi_usempif08|mpi_usempi_ignore_tkr|open-rte|open-pal)\.so')
  # shellcheck disable=SC2086 # one path per word
  imported=$(nm -D --undefined-only "$bin" $libs 2>/dev/null | awk '{ print $NF }' | grep -E '^(MPI_[A-Z][a-z_0-9]*|mpi_[a-z_0-9]+_)$' | sort -u)
  n=0 intercepted=0 missing=()
  for f in $imported; do
    n=$((n + 1))
    if grep -qx "$f" <<<"$defined"; then
      intercepted=$((intercepted + 1))
      continue
    fi
    # The C name of a Fortran import, for the list of local functions.
    c=$f
    [[ $f == mpi_* ]] && c=MPI_$(echo "${f#mpi_}" | sed 's/_$//; s/^./\U&/')
    grep -qiE "$local_mpi_calls" <<<"$c" || missing+=("$f")
  done
  echo "$bin: imports $n MPI functions, $intercepted intercepted, $((n - intercepted - ${#missing[@]})) local ones not;" \
       "not intercepted: ${missing[*]:-none}"
  [ ${#missing[@]} -eq 0 ] || status=1
done
[ $found -gt 0 ] || exit 77
exit $status
