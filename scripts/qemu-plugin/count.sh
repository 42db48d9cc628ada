#!/usr/bin/env bash
# Run a firmware ELF on QEMU mps2-an386 with the instruction-counting plugin
# and print the total number of guest instructions executed, from reset to
# the semihosting exit.
#
#   scripts/qemu-plugin/count.sh [--plugin PATH] FIRMWARE.elf [QEMU ARG...]
#
# QEMU ARG...: another machine's command instead of the default
#   qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic
#   -semihosting-config enable=on,target=native
# (the plugin, its log and -kernel FIRMWARE.elf are appended), e.g.
#   count.sh fw.elf qemu-system-riscv32 -machine virt -bios none -nographic \
#       -semihosting-config enable=on,target=native
# (scripts/firmware-targets.sh). The plugin is generic TCG code: the one built
# for qemu-system-arm loads in the other qemu-system-* of the same version.
#
# stdout: the count (one number). stderr: the firmware's semihosting output.
# Exit status: the firmware's exit status (non-zero: no count is printed).
# The plugin path must not contain a comma (QEMU option syntax).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
plugin="${QEMU_PLUGIN:-$here/../../build/qemu-plugin/libinsn.so}"
if [ "${1:-}" = "--plugin" ]; then
    plugin="$2"
    shift 2
fi
[ $# -ge 1 ] || { echo "usage: $0 [--plugin libinsn.so] FIRMWARE.elf [QEMU ARG...]" >&2; exit 2; }
elf="$1"
shift
if [ $# -eq 0 ]; then
    set -- qemu-system-arm -machine mps2-an386 -cpu cortex-m4 \
        -nographic -semihosting-config enable=on,target=native
fi
[ -f "$plugin" ] || { echo "count.sh: $plugin not found (run scripts/qemu-plugin/build.sh)" >&2; exit 2; }
[ -f "$elf" ] || { echo "count.sh: $elf not found" >&2; exit 2; }

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
timeout "${QEMU_TIMEOUT:-300}" "$@" \
    -plugin "$plugin,inline=on" -d plugin -D "$log" \
    -kernel "$elf" </dev/null >&2 || status=$?
if [ "$status" -ne 0 ]; then
    echo "count.sh: $elf exited with status $status" >&2
    exit "$status"
fi
count="$(sed -n 's/^insns: \([0-9][0-9]*\)$/\1/p' "$log" | tail -n1)"
if [ -z "$count" ]; then
    echo "count.sh: no 'insns:' line in the plugin log:" >&2
    cat "$log" >&2
    exit 1
fi
echo "$count"
