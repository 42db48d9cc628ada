#!/usr/bin/env bash
# Compares two score CSVs column by column (header lines skipped):
#
#   scripts/compare-scores.sh GOT.csv WANT.csv REL_TOL
#
# Each value must be within REL_TOL times the largest |value| of its column in
# WANT. Prints the worst relative difference per column; exit 1 on a mismatch
# or a row/column count difference.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 GOT.csv WANT.csv REL_TOL" >&2; exit 2; }
awk -F, -v tol="$3" '
  function abs(v) { return v < 0 ? -v : v }
  FNR == 1 && $1 !~ /^[-+0-9.eE]+$/ { next }
  FILENAME == ARGV[1] { g++; for (i = 1; i <= NF; i++) got[g, i] = $i; gc[g] = NF; next }
  { w++; for (i = 1; i <= NF; i++) { want[w, i] = $i; if (abs($i) > scale[i]) scale[i] = abs($i) }; wc[w] = NF; cols = NF }
  END {
    if (g != w) { printf "row count differs: %d vs %d\n", g, w; exit 1 }
    bad = 0
    for (r = 1; r <= w; r++) {
      if (gc[r] != wc[r]) { printf "row %d: %d vs %d columns\n", r, gc[r], wc[r]; exit 1 }
      for (i = 1; i <= wc[r]; i++) {
        d = abs(got[r, i] - want[r, i]) / (scale[i] > 0 ? scale[i] : 1)
        if (d > worst[i]) worst[i] = d
        if (d > tol) { if (bad < 5) printf "row %d col %d: %s vs %s\n", r, i, got[r, i], want[r, i]; bad++ }
      }
    }
    line = "worst relative difference per column:"
    for (i = 1; i <= cols; i++) line = line sprintf(" %.2e", worst[i])
    print line
    printf "%d rows x %d columns compared, tolerance %s: %s\n", w, cols, tol, bad ? bad " mismatches" : "all within"
    exit bad ? 1 : 0
  }' "$1" "$2"
