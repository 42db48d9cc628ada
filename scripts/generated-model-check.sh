#!/usr/bin/env bash
# A firmware that uses only the generated model (`kpca export --format c`:
# a ready `const kpca_model NAME_model`) links no loader: the M4F flash probe
# (c-examples/firmware/flash_kpca.c) with WITH_KPCA=3 (generated model +
# kpca_rbf_project / kpca_rbf_anomaly_score) and 4 (generated model +
# kpca_project / kpca_anomaly_score) must not contain kpca_model_from_bytes
# nor the loader's local symbols (RawModel::load_into, which holds the CRC-32
# inlined, parse_heads, attach_heads; found with
# `arm-none-eabi-nm -S build/firmware/thumbv7em-none-eabihf/libkpca.a`),
# while WITH_KPCA=2 (blob + kpca_model_from_bytes) must, which shows the
# check can fail. Each probe runs on QEMU (mps2-an386) and must report
# status 0.
#   scripts/generated-model-check.sh
# Also the firmware step `no-loader` of the test command.
set -euo pipefail
. "$(dirname "$0")/common.sh"
need_tools generated-model-check arm-none-eabi-gcc arm-none-eabi-nm qemu-system-arm
m4f_bench_setup
out=$TARGET_DIR/generated-model-check
rm -rf "$out"
mkdir -p "$out"
cargo xtask gen-model bench rbf 128 8 4 "$out" >/dev/null
loader='kpca_model_from_bytes|load_into|parse_heads|attach_heads'
for with in 2 3 4; do
  elf=$out/flash_$with.elf
  arm-none-eabi-gcc $CFLAGS -I"$out" -DWITH_KPCA=$with $LDFLAGS -o "$elf" \
    $FW/flash_kpca.c "$out/bench_model.c" $FW/startup.c $FW/semihost.c $FW/stack.c "$LIB" -lm
  run=$(qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -semihosting-config enable=on,target=native \
    -kernel "$elf" </dev/null 2>&1) || true
  case "$run" in *"status 0"*) ;; *) echo "generated-model-check: WITH_KPCA=$with failed: $run" >&2; exit 1 ;; esac
  found=$(arm-none-eabi-nm "$elf" | grep -E "$loader" || true)
  if [ "$with" = 2 ]; then
    [ -n "$found" ] || { echo "generated-model-check: the blob probe links no loader symbol: the check cannot fail" >&2; exit 1; }
    echo "ok: WITH_KPCA=2 (blob) links the loader: $(echo "$found" | wc -l) symbols"
  else
    [ -z "$found" ] || { echo "generated-model-check: WITH_KPCA=$with (generated model) links the loader:" >&2; echo "$found" >&2; exit 1; }
    echo "ok: WITH_KPCA=$with (generated model) links no loader"
  fi
done
