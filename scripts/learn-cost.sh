#!/usr/bin/env bash
# The cost of learning on the device (kpca_fit, RBF, standardised, k = 4) on
# the emulated Cortex-M4F (QEMU mps2-an386, exact instruction counts from the
# TCG plugin): for n = 32, 64, 128 and d = 8, 24, the instructions of the fit
# (the run with the fit minus the run without), the stack it used (painted),
# its workspace and model bytes, and the flash (text + rodata) the fit adds to
# the program. Prints a markdown table (docs/ON-DEVICE-LEARNING.md).
#
#   scripts/learn-cost.sh [--quick]      (--quick: n = 32 only)
set -euo pipefail
. "$(dirname "$0")/common.sh"
need_tools learn-cost arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm
m4f_bench_setup
out=$TARGET_DIR/learn-cost
mkdir -p "$out"
flash() { arm-none-eabi-size -A "$1" | awk '$1==".text"||$1==".rodata"{s+=$2} END{print s}'; }
build() { # ELF N D FIT
  arm-none-eabi-gcc $CFLAGS -DLEARN_N="$2" -DLEARN_D="$3" -DLEARN_FIT="$4" $LDFLAGS -o "$1" \
    $FW/learn_bench.c $FW/startup.c $FW/semihost.c $FW/stack.c "$LIB" -lm
}
commas() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }
ns="32 64 128"
[ "${1:-}" = "--quick" ] && ns=32
echo "| n | d | k | kpca_fit (instructions) | per n³ | stack (B) | workspace (B) | model (B) | flash added by the fit (B) |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for n in $ns; do
  for d in 8 24; do
    build "$out/without_${n}_$d.elf" "$n" "$d" 0
    build "$out/with_${n}_$d.elf" "$n" "$d" 1
    run=$(timeout 600 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
      -semihosting-config enable=on,target=native -kernel "$out/with_${n}_$d.elf" </dev/null 2>&1) || {
      echo "learn-cost: n=$n d=$d failed: $run" >&2; exit 1; }
    a=$(count "$out/without_${n}_$d.elf"); b=$(count "$out/with_${n}_$d.elf")
    fit=$((b - a))
    ws=$(sed -n 's/.*workspace=\([0-9]*\).*/\1/p' <<<"$run")
    mb=$(sed -n 's/.*model=\([0-9]*\).*/\1/p' <<<"$run")
    st=$(sed -n 's/.*stack=\([0-9]*\).*/\1/p' <<<"$run")
    fl=$(( $(flash "$out/with_${n}_$d.elf") - $(flash "$out/without_${n}_$d.elf") ))
    per=$(awk -v f="$fit" -v n="$n" 'BEGIN{printf "%.1f", f / (n * n * n)}')
    printf "| %d | %d | 4 | %s | %s | %s | %s | %s | %s |\n" "$n" "$d" "$(commas "$fit")" "$per" "$(commas "$st")" \
      "$(commas "$ws")" "$(commas "$mb")" "$(commas "$fl")"
  done
done
