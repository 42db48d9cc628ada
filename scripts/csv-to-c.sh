#!/usr/bin/env bash
# A CSV of numbers (optional header line, '#' comments) as a C array:
# OUT_DIR/NAME.h declares `extern const float NAME[]` with NAME_ROWS and
# NAME_DIM (NAME upper-cased), OUT_DIR/NAME.c defines it. With COLUMN, only
# that column (1-based) of each row is taken.
#
#   scripts/csv-to-c.sh NAME FILE.csv OUT_DIR [COLUMN]
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 NAME FILE.csv OUT_DIR [COLUMN]" >&2; exit 2; }
name=$1 csv=$2 out=$3 col=${4:-0}
upper=$(tr '[:lower:]' '[:upper:]' <<<"$name")
awk -F, -v gen="$out" -v name="$name" -v up="$upper" -v col="$col" '
  /^#/ || NF == 0 { next }
  NR == 1 && $1 !~ /^[-+0-9.eE]+$/ { next }
  { first = (col > 0 ? col : 1); last = (col > 0 ? col : NF)
    if (col > NF) { printf "%s: line %d has %d values, no column %d\n", name, NR, NF, col > "/dev/stderr"; exit 1 }
    n = last - first + 1
    if (dim == 0) dim = n
    if (n != dim) { printf "%s: line %d has %d values, expected %d\n", name, NR, n, dim > "/dev/stderr"; exit 1 }
    rows++; line = "   "
    for (i = first; i <= last; i++) line = line sprintf(" %sf,", ($i ~ /[.eE]/ ? $i : $i ".0"))
    body = body line "\n" }
  END {
    if (rows == 0) { printf "%s: no rows\n", name > "/dev/stderr"; exit 1 }
    printf "#ifndef %s_H\n#define %s_H\n#include <stddef.h>\n#define %s_ROWS %du\n#define %s_DIM %du\nextern const float %s[];\n#endif\n", up, up, up, rows, up, dim, name > (gen "/" name ".h")
    printf "#include \"%s.h\"\nconst float %s[%s_ROWS * %s_DIM] = {\n%s};\n", name, name, up, up, body > (gen "/" name ".c")
  }' "$csv"
