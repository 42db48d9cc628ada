#!/usr/bin/env bash
# Runs a model on the emulated Cortex-M4F through the C firmware and libkpca.a.
#
#   scripts/firmware-run.sh MODEL.kpca VECTORS.csv OUT_DIR
#
# Exports MODEL.kpca as C (`kpca export --format c --name model`), turns the CSV
# (header optional, comma-separated) into a C array, builds
# c-examples/firmware/kpca_fw.c with arm-none-eabi-gcc (strict flags, Cortex-M4F
# hard float) against the firmware libkpca.a (scripts/build-firmware-lib.sh):
# the generated-model route (the ready `const kpca_model model_model` through
# its kernel's entry points), checked with nm to link no loader; runs it
# under qemu-system-arm -machine mps2-an386 with semihosting and writes its
# per-vector output to OUT_DIR/firmware_scores.csv (y_1..y_k, score), and
# for a model with the optional sections OUT_DIR/firmware_predictions.csv
# (kpca_predict) and OUT_DIR/firmware_reconstructions.csv (kpca_reconstruct).
# Exit status: the firmware's (0 = every call returned KPCA_OK).
# Also `cargo xtask firmware run MODEL.kpca VECTORS.csv OUT_DIR` (installs the
# tools first); used by tests/firmware_qemu.rs and scripts/firmware-demo.sh.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 MODEL.kpca VECTORS.csv OUT_DIR" >&2; exit 2; }
model=$(realpath "$1"); vectors=$(realpath "$2"); out=$(mkdir -p "$3" && realpath "$3")
. "$(dirname "$0")/common.sh"
root=$ROOT
need_tools firmware-run arm-none-eabi-gcc arm-none-eabi-size arm-none-eabi-nm qemu-system-arm
gen=$out/firmware-src
mkdir -p "$gen"

lib=$("$root/scripts/build-firmware-lib.sh" thumbv7em-none-eabihf)
cargo run -q --release -p kpca-cli --bin kpca -- \
    export --model "$model" --format c --name model --output-dir "$gen" >/dev/null

# vectors.c / vectors.h from the CSV: skip a non-numeric first line and # comments.
"$root/scripts/csv-to-c.sh" vectors "$vectors" "$gen"

fw=$root/c-examples/firmware
ARCH="-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
CFLAGS="$ARCH -O2 -std=c99 -Wall -Wextra -Wpedantic -Werror -Wdouble-promotion -Wfloat-conversion -ffunction-sections -fdata-sections"
elf=$out/kpca_fw.elf
arm-none-eabi-gcc $CFLAGS -I"$fw" -I"$root/include" -I"$gen" \
  -nostartfiles --specs=nano.specs -T "$fw/mps2_an386.ld" -Wl,--gc-sections -Wl,--no-warn-execstack -Wl,-Map="$out/kpca_fw.map" \
  -o "$elf" "$fw/kpca_fw.c" "$gen/model.c" "$gen/vectors.c" "$fw/startup.c" "$fw/semihost.c" "$fw/stack.c" \
  "$lib" -lm
# The same firmware with -fshort-enums must compile too (kpca_status is a fixed-width integer).
arm-none-eabi-gcc $CFLAGS -fshort-enums -I"$fw" -I"$root/include" -I"$gen" -c -o "$out/kpca_fw_short_enums.o" "$fw/kpca_fw.c"
# The generated-model route links no loader (the symbols of scripts/generated-model-check.sh).
loader=$(arm-none-eabi-nm "$elf" | grep -E 'kpca_model_from_bytes|load_into|parse_heads|attach_heads' || true)
[ -z "$loader" ] || { echo "firmware-run: kpca_fw (generated model) links the loader:" >&2; echo "$loader" >&2; exit 1; }
arm-none-eabi-size "$elf" | tail -1 |
  awk '{printf "firmware (generated model, no loader linked): text %d B, data %d B, bss %d B\n", $1, $2, $3}'

status=0
timeout 120 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
  -semihosting-config enable=on,target=native -kernel "$elf" </dev/null >"$out/firmware_output.txt" 2>&1 || status=$?
grep -v '^[0-9pr] ' "$out/firmware_output.txt" | grep -v '^[0-9]' || true
awk '/^[0-9]+ / { line = $2; for (i = 3; i < NF; i++) line = line "," $i; print line }' \
  "$out/firmware_output.txt" >"$out/firmware_scores.csv"
# The optional sections' outputs, when the model has them: "p row ..." and "r row ...".
for tag in p:predictions r:reconstructions; do
  rm -f "$out/firmware_${tag#*:}.csv"
  awk -v t="${tag%%:*}" '$1 == t { line = $3; for (i = 4; i <= NF; i++) line = line "," $i; print line }' \
    "$out/firmware_output.txt" >"$out/firmware_${tag#*:}.csv"
  [ -s "$out/firmware_${tag#*:}.csv" ] || rm -f "$out/firmware_${tag#*:}.csv"
done
echo "firmware exit status $status; $(wc -l <"$out/firmware_scores.csv") rows in $out/firmware_scores.csv"
exit $status
