#!/usr/bin/env bash
# Cost of kpca_project over the shapes: every d from 1 to 64 at k = 4 and 8
# (RBF, m = 128 stored points), on the emulated Cortex-M4F (QEMU mps2-an386),
# exact instructions per call counted as in scripts/firmware-cost.sh; each
# shape's firmware first checks its results against the host's (self-check).
#
#   scripts/firmware-sweep.sh [D_MAX]      (default 64; about 10 minutes)
#   KPCA_BUILD=size scripts/firmware-sweep.sh   (the size-first build)
#
# Writes build/firmware-sweep[-size].md (d, instructions at k = 4 and 8, per
# stored point, and the stack of kpca_project and of the kernel's own
# kpca_rbf_project) and prints it. Works from any directory.
set -euo pipefail
. "$(dirname "$0")/common.sh"
root=$ROOT
dmax=${1:-64}
need_tools firmware-sweep arm-none-eabi-gcc qemu-system-arm python3
N=16
M=128
out=$root/build/sweep-${KPCA_BUILD:-speed}
mkdir -p "$out"
m4f_bench_setup

# project_cost D K: instructions per kpca_project call for an RBF model of
# shape (M, D, K), then the stack of kpca_project and kpca_rbf_project (B).
project_cost() {
  local d=$1 k=$2 dir=$out/d${1}_k${2} calls log c0 cn
  cargo xtask gen-model bench rbf "$M" "$d" "$k" "$dir" >/dev/null
  for calls in 0 $N; do
    arm-none-eabi-gcc $CFLAGS -I"$dir" -DBENCH_OP=1 -DBENCH_CALLS=$calls $LDFLAGS \
      -o "$dir/bench_1_${calls}.elf" $FW/bench_kpca.c "$dir/bench_model.c" $harness "$LIB" -lm &
  done
  wait
  log=$(qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -semihosting-config enable=on,target=native -kernel "$dir/bench_1_0.elf" 2>&1 </dev/null)
  echo "$log" | grep -q "self-check ok" || { echo "self-check failed for d=$d k=$k: $log" >&2; exit 1; }
  c0=$(count "$dir/bench_1_0.elf"); cn=$(count "$dir/bench_1_$N.elf")
  echo "$(( (cn - c0) / N )) $(echo "$log" | sed -n 's/.*stack project \([0-9]*\) B.*one-kernel project \([0-9]*\) B.*/\1 \/ \2/p')"
}

table="| d | kpca_project, k = 4 | per stored point | kpca_project, k = 8 | per stored point | stack, k = 4 / k = 8 (B; kpca_project / kpca_rbf_project) |
|--:|--:|--:|--:|--:|--:|"
for d in $(seq 1 "$dmax"); do
  read -r p4 s4 <<<"$(project_cost "$d" 4)"; read -r p8 s8 <<<"$(project_cost "$d" 8)"
  row="| $d | $p4 | $((p4 / M)) | $p8 | $((p8 / M)) | $s4; $s8 |"
  echo "$row"
  table="$table
$row"
done
suffix=; [ "${KPCA_BUILD:-speed}" = size ] && suffix=-size
echo "$table" > "$root/build/firmware-sweep$suffix.md"
echo "wrote $root/build/firmware-sweep$suffix.md"
