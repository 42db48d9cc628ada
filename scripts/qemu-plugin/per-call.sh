#!/usr/bin/env bash
# Instructions per call from two builds of the same benchmark firmware that
# differ only in how many times they call the function under test:
#
#   scripts/qemu-plugin/per-call.sh [--plugin PATH] BENCH_0.elf BENCH_N.elf N
#
# per call = (count(BENCH_N) - count(BENCH_0)) / N
# See scripts/qemu-plugin/README.md for what the figure includes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
popt=()
if [ "${1:-}" = "--plugin" ]; then
    popt=(--plugin "$2")
    shift 2
fi
[ $# -eq 3 ] || { echo "usage: $0 [--plugin libinsn.so] BENCH_0.elf BENCH_N.elf N" >&2; exit 2; }
elf0="$1"; elfn="$2"; n="$3"
[ "$n" -gt 0 ] 2>/dev/null || { echo "per-call.sh: N must be a positive integer" >&2; exit 2; }

c0="$("$here/count.sh" "${popt[@]}" "$elf0")"
cn="$("$here/count.sh" "${popt[@]}" "$elfn")"
echo "$(basename "$elf0"): $c0 instructions"
echo "$(basename "$elfn"): $cn instructions"
awk -v a="$c0" -v b="$cn" -v n="$n" \
    'BEGIN { printf "per call: (%d - %d) / %d = %.2f instructions\n", b, a, n, (b - a) / n }'
