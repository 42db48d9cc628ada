#!/usr/bin/env bash
# Checks what static libraries export: lists the defined global symbols of each
# (nm -g --defined-only: functions, data, weak and common symbols alike) and
# fails on any symbol that is not a kpca_* function, and, unless --prefix-only,
# unless the set is exactly the functions declared in include/kpca.h.
#
#   scripts/check-lib-symbols.sh [--prefix-only] LIB...
#
# Prints one line per library, with the external symbols it refers to (none
# today: the libraries need no C library or libgcc). NM selects nm (default: nm, which reads the ELF
# objects of every target). Used by scripts/build-firmware-lib.sh on each
# library it makes and by `cargo xtask release` on the release folder.
set -euo pipefail
. "$(dirname "$0")/common.sh"
prefix_only=0
if [ "${1:-}" = --prefix-only ]; then
  prefix_only=1
  shift
fi
[ $# -ge 1 ] || { echo "usage: $0 [--prefix-only] LIB..." >&2; exit 2; }
NM=${NM:-nm}
need_tools check-lib-symbols "$NM"
declared=$(grep -oE '\bkpca_[a-z_]+\(' include/kpca.h | tr -d '(' | sort -u)
[ -n "$declared" ] || { echo "check-lib-symbols: no functions found in include/kpca.h" >&2; exit 1; }
status=0
for lib in "$@"; do
  case "$lib" in /*) ;; *) lib=$CALLER_DIR/$lib ;; esac
  [ -f "$lib" ] || { echo "check-lib-symbols: $lib: no such file" >&2; status=1; continue; }
  # "ADDRESS TYPE NAME" lines (member headers and blank lines have other shapes).
  exported=$("$NM" -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
  foreign=$(grep -vE '^kpca_' <<<"$exported" || true)
  if [ -n "$foreign" ]; then
    echo "check-lib-symbols: FAIL: $lib exports $(wc -l <<<"$foreign") symbols besides kpca_*:" >&2
    sed 's/^/  /' <<<"$foreign" >&2
    status=1
    continue
  fi
  if [ "$prefix_only" -eq 0 ] && [ "$exported" != "$declared" ]; then
    echo "check-lib-symbols: FAIL: $lib: exported functions differ from include/kpca.h (< library, > header):" >&2
    diff <(echo "$exported") <(echo "$declared") >&2 || true
    status=1
    continue
  fi
  undefined=$("$NM" -u "$lib" 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u | tr '\n' ' ')
  echo "check-lib-symbols: ${lib#"$ROOT"/}: $(grep -c . <<<"$exported") global symbols, all kpca_*$([ "$prefix_only" -eq 1 ] || echo ", exactly the functions of include/kpca.h"); refers to ${undefined:-no external symbol}"
done
exit "$status"
