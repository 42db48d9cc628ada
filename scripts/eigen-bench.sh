#!/usr/bin/env bash
# The on-device fit's eigensolver (kpca::learn::eigen: Householder
# tridiagonalisation + implicit QL, in place) against nalgebra's no_std
# SymmetricEigen (SMatrix<f32, N, N> by value) on the emulated Cortex-M4F
# (QEMU mps2-an386, exact instruction counts): every eigenpair of the
# centred RBF kernel matrix of N points (firmware/eigen-bench). Prints a
# markdown table: instructions (the run minus the matrix-only run), flash
# added (text + rodata against the matrix-only build), the whole program's
# stack high-water mark, the largest eigenvalue (the two must agree).
#
#   scripts/eigen-bench.sh [N...]      (default 32 64 128)
set -euo pipefail
. "$(dirname "$0")/common.sh"
need_tools eigen-bench arm-none-eabi-size qemu-system-arm
scripts/qemu-plugin/build.sh >/dev/null
PLUGIN=$ROOT/build/qemu-plugin/libinsn.so
fw=$ROOT/firmware/eigen-bench
sizes=${*:-32 64 128}
flash() { arm-none-eabi-size -A "$1" | awk '$1==".text"||$1==".rodata"{s+=$2} END{print s}'; }
build() { # N SOLVER -> the ELF's path, copied per variant
  local elf=$TARGET_DIR/eigen-bench/n$1-$2.elf
  mkdir -p "$(dirname "$elf")"
  (cd "$fw" && EIGEN_N=$1 EIGEN_SOLVER=$2 cargo build -q --release --target-dir "$TARGET_DIR/eigen-bench/build") || return 1
  cp "$TARGET_DIR/eigen-bench/build/thumbv7em-none-eabihf/release/kpca-eigen-bench" "$elf"
  echo "$elf"
}
run() { timeout 600 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
  -semihosting-config enable=on,target=native -kernel "$1" </dev/null 2>&1; }
echo "| n | solver | instructions | flash added (B) | stack, whole program (B) | largest eigenvalue |"
echo "|--:|---|--:|--:|--:|--:|"
for n in $sizes; do
  base=$(build "$n" none) || exit 1
  b0=$(scripts/qemu-plugin/count.sh --plugin "$PLUGIN" "$base" 2>/dev/null)
  f0=$(flash "$base")
  for s in kpca nalgebra; do
    if ! elf=$(build "$n" "$s" 2>/dev/null); then
      [ "$s" = nalgebra ] || { echo "eigen-bench: n=$n $s does not build" >&2; exit 1; }
      echo "| $n | nalgebra SymmetricEigen (SMatrix) | does not build: nalgebra's static sizes stop at 127 | | | |"
      continue
    fi
    out=$(run "$elf")
    case "$out" in *"solver="*) ;; *) echo "eigen-bench: n=$n $s failed: $out" >&2; exit 1 ;; esac
    ins=$(( $(scripts/qemu-plugin/count.sh --plugin "$PLUGIN" "$elf" 2>/dev/null) - b0 ))
    st=$(sed -n 's/.*stack=\([0-9]*\).*/\1/p' <<<"$out")
    big=$(sed -n 's/.*largest=\([-0-9.e]*\).*/\1/p' <<<"$out")
    name=$([ "$s" = kpca ] && echo "kpca (Householder + QL, in place)" || echo "nalgebra SymmetricEigen (SMatrix)")
    printf "| %d | %s | %s | %s | %s | %s |\n" "$n" "$name" "$ins" "$(( $(flash "$elf") - f0 ))" "$st" "$big"
  done
done
