#!/usr/bin/env bash
# The table of intercepted calls (record/Intercept.def) and the recorder library agree:
#
#   intercept_table.sh RECORDER SOURCE_DIR
#
# - every row's C function is exported by RECORDER (nm -D), and for rows with a Fortran form
#   (F, FSTR) its four manglings (mpi_send_, mpi_send, mpi_send__, MPI_SEND) are too;
# - RECORDER exports no MPI_*/mpi_* function that is not a row (no wrapper outside the table);
# - every row's op is ir/Ops.def's operation of the same MPI name.
# Prints the counts of C and Fortran functions intercepted.
set -uo pipefail
recorder=$1 src=$2
def=$src/record/Intercept.def ops=$src/ir/Ops.def
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

# The rows, one a line: OP CNAME FNAME FUPPER FORM (comments dropped, rows joined).
sed 's://.*$::' "$def" | tr '\n' ' ' | tr -s ' ' |
  grep -oE 'TG_(INTERCEPT|ENVIRONMENT)\( ?[A-Za-z_]+, [A-Za-z_]+, [a-z_]+, [A-Z_]+(, [A-Z]+)?' |
  sed -E 's/TG_ENVIRONMENT\( ?([^,]+), ([^,]+), ([^,]+), ([^,]+)/\1 \2 \3 \4 F/;
          s/TG_INTERCEPT\( ?([^,]+), ([^,]+), ([^,]+), ([^,]+), ([^,]+)/\1 \2 \3 \4 \5/' >"$work/rows"
rows=$(wc -l <"$work/rows")
[ "$rows" -gt 100 ] || { echo "FAIL: only $rows rows read from $def"; exit 1; }

nm -D --defined-only "$recorder" | awk '{ print $NF }' | grep -E '^(MPI_|mpi_)' | sort -u >"$work/exported"
: >"$work/expected"
while read -r op cname fname fupper form; do
  echo "$cname" >>"$work/expected"
  if [ "$form" != NOF ]; then
    printf '%s\n' "mpi_${fname}_" "mpi_${fname}" "mpi_${fname}__" "$fupper" >>"$work/expected"
    [ "$fupper" = "$(echo "$cname" | tr '[:lower:]' '[:upper:]')" ] ||
      { echo "FAIL: row $cname: the Fortran upper-case name $fupper is not the C name's"; status=1; }
    [ "$fname" = "$(echo "${cname#MPI_}" | tr '[:upper:]' '[:lower:]')" ] ||
      { echo "FAIL: row $cname: the Fortran name $fname is not the C name's"; status=1; }
  fi
  grep -q "^TRACEGEN_OP($op, \"$cname\"," "$ops" ||
    { echo "FAIL: row $cname: ir/Ops.def has no TRACEGEN_OP($op, \"$cname\", ...)"; status=1; }
done <"$work/rows"
sort -u "$work/expected" -o "$work/expected"

missing=$(comm -23 "$work/expected" "$work/exported")
[ -z "$missing" ] || { echo "FAIL: rows of Intercept.def the library does not export:"; echo "$missing"; status=1; }
stray=$(comm -13 "$work/expected" "$work/exported")
[ -z "$stray" ] || { echo "FAIL: MPI functions the library exports that are no row of Intercept.def:"; echo "$stray"; status=1; }

c=$(grep -c . "$work/rows") f=$(awk '$5 != "NOF"' "$work/rows" | grep -c .)
echo "Intercept.def: $c rows; intercepted from C: $c functions, from Fortran: $f (each in four manglings)"
exit $status
